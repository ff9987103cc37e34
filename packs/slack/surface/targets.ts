// Where a message goes. The methods that post (chat.postMessage, chat.postEphemeral,
// chat.scheduleMessage) take `channel` as an encoded id or a channel's name (`#general` or
// `general`), and chat.postMessage also a person's id, which posts to the caller's DM with them
// (for a bot, the app's DM: its App Home's Messages tab), opened if it is not yet. The methods that
// act on a message already there (chat.update, chat.delete, …) take the id only, as on Slack.
import { isVendorError } from '../../kit/errors.js';
import { openDirectMessage } from '../direct-messages.js';
import { CHANNEL_NAME_INDEX, channelKind } from '../workspace.js';
import { SlackMethodError } from './errors.js';
import type { SlackPrincipal } from './principal.js';

const USER_ID = /^[UW][A-Z0-9]{2,}$/;

/** The channel id `channel` names for a post; refuses what names nothing (`channel_not_found`). */
export async function postTarget(
  p: SlackPrincipal,
  channel: string,
  options: { users: boolean },
): Promise<string> {
  if (options.users && USER_ID.test(channel)) {
    try {
      return (await openDirectMessage(p.twin, { user: p.user, other: channel })).im.id;
    } catch (error) {
      // A person who is not there is, to a post, a channel that is not there.
      if (isVendorError(error) && error.vendorCode === 'user_not_found')
        throw new SlackMethodError('channel_not_found', `no channel or person ${channel}`);
      throw error;
    }
  }
  // Ids are upper-case and names lower-case, so a channel's own id is never taken for a name.
  const name = channel.startsWith('#') ? channel.slice(1) : channel;
  if (channel.startsWith('#') || /^[a-z0-9_-]+$/.test(channel)) {
    const named = await p.twin.read((view) =>
      channelKind
        .lookup(view, CHANNEL_NAME_INDEX, name)
        .find((c) => c.team_id === p.team && c.is_im !== true),
    );
    if (named === undefined)
      throw new SlackMethodError('channel_not_found', `no channel named #${name}`);
    return named.id;
  }
  return channel;
}
