// Direct-message conversations (conversations.open): one D… channel per pair of people, drawn
// the first time either opens it and the same every time after; kept as a channel record too
// (`is_im`), so messages go there like anywhere else — `message.im` to an app in the DM. An app's DM with a person is the
// channel its App Home's Messages tab shows, so app_home_opened and conversations.open agree.
import { commit, skip, type Twin } from '../../src/index.js';
import { recordKind } from '../../src/index.js';
import { requirePackTwin } from '../kit/twin-checks.js';
import { appHomeKind, imKey } from './activity.js';
import { appOfTeam } from './apps.js';
import { slackError } from './errors.js';
import { slackIds } from './ids.js';
import { channelKind, getUser, type SlackChannel } from './workspace.js';

export type DirectMessage = {
  id: string;
  team: string;
  /** The two people, ordered. */
  users: [string, string];
  created: number;
};

/** The im records of the twin (keyed by the ordered pair), typed (src/state/record-kind.ts). */
const imKind = recordKind<DirectMessage, [string, string]>({
  type: 'im',
  id: imKey,
});

/** Opens (or finds) the DM between `user` and `other`; `opened` is false when it existed. */
export async function openDirectMessage(
  twin: Twin,
  input: { user: string; other: string },
): Promise<{ im: DirectMessage; opened: boolean }> {
  requirePackTwin(twin, 'slack');
  const done = await twin.applyAtomic((view) => {
    const me = getUser(view, input?.user);
    const other = getUser(view, input.other, 'users');
    if (other.team_id !== me.team_id || other.deleted)
      throw slackError(
        'user_not_found',
        `user ${other.id} is not in workspace ${me.team_id}`,
        'users',
      );
    const id = imKind.id(me.id, other.id);
    const kept = imKind.read(view, id);
    if (kept !== undefined) return skip({ im: kept, opened: false });
    // A bot's DM with a person is its App Home's channel, when that was opened first.
    const app = appOfTeam(view, me.team_id);
    const person =
      app?.bot_user_id === me.id ? other.id : app?.bot_user_id === other.id ? me.id : undefined;
    const home =
      app === undefined || person === undefined
        ? undefined
        : appHomeKind.read(view, `${app.id}:${person}`);
    const im: DirectMessage = {
      id: home?.channel ?? slackIds.dm(twin.world.ids),
      team: me.team_id,
      users: [me.id, other.id].sort() as [string, string],
      created: Math.floor(twin.world.clock.now() / 1000),
    };
    // The DM is also a channel record, so messages are posted, read and reacted to in it.
    const channel: SlackChannel = {
      id: im.id,
      name: '',
      team_id: im.team,
      created: im.created,
      creator: me.id,
      is_channel: false,
      is_private: true,
      is_archived: false,
      is_im: true,
      user: other.id,
    };
    return commit([imKind.write('im.open', id, im), channelKind.write('im.open', im.id, channel)], {
      im,
      opened: true,
    });
  });
  return done.result;
}
