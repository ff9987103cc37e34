// conversations.*: channels and their history, threads and members, and direct messages. Lists
// page with Slack's cursors; history is newest first, a thread oldest first (its parent leading).
import { joinChannel, leaveChannel } from '../activity.js';
import { isVendorError } from '../../kit/errors.js';
import { openDirectMessage } from '../direct-messages.js';
import { messageKey, messageKind } from '../messages.js';
import { channelKind, createChannel, isMember, userKind, type SlackChannel } from '../workspace.js';
import type { JsonObject, ReadView, Twin } from '../../../src/index.js';
import { SlackMethodError } from './errors.js';
import type { SlackPrincipal } from './principal.js';
import { channelMessageView } from './message-view.js';
import {
  CHANNEL_INDEX,
  channelOf,
  ok,
  optionalStr,
  page,
  renderChannel,
  renderIm,
  route,
  str,
  tsBound,
  tsValue,
  type SlackRoute,
} from './route.js';

export const CONVERSATION_METHODS: readonly SlackRoute[] = [
  route('conversations.history', 'read', async ({ principal: p, input }) => {
    const channel = await channelOf(p.twin, p, str(input, 'channel'));
    const within = tsWindow(input);
    const { all, show } = await channelMessages(p.twin, channel.id);
    // The channel's own messages: a thread's replies are read with conversations.replies, but
    // for those broadcast to the channel too (thread_broadcast).
    const messages = all
      .filter(
        (m) =>
          m.thread_ts === undefined || m.thread_ts === m.ts || m.subtype === 'thread_broadcast',
      )
      .filter((m) => within(m.ts))
      .sort((a, b) => (a.ts < b.ts ? 1 : -1));
    const { items, next } = page(messages, input);
    return ok({
      messages: items.map(show),
      has_more: next !== '',
      response_metadata: { next_cursor: next },
    });
  }),
  route('conversations.replies', 'read', async ({ principal: p, input }) => {
    const channel = await channelOf(p.twin, p, str(input, 'channel'));
    const ts = str(input, 'ts');
    const parent = await p.twin.read((view) => messageKind.read(view, messageKey(channel.id, ts)));
    if (parent === undefined)
      throw new SlackMethodError('thread_not_found', `no message ${ts} in ${channel.id}`);
    // A reply names its thread's parent; asked with a reply's ts, Slack answers the whole thread.
    const root = parent.thread_ts ?? parent.ts;
    const within = tsWindow(input);
    const { all, show } = await channelMessages(p.twin, channel.id);
    // `oldest` / `latest` bound the replies; the parent leads the thread whatever they say.
    const thread = all
      .filter((m) => m.ts === root || (m.thread_ts === root && within(m.ts)))
      .sort((a, b) => (a.ts < b.ts ? -1 : 1));
    const { items, next } = page(thread, input);
    return ok({
      messages: items.map(show),
      has_more: next !== '',
      response_metadata: { next_cursor: next },
    });
  }),
  route('conversations.info', 'read', async ({ principal: p, input }) => {
    const channel = await channelOf(p.twin, p, str(input, 'channel'));
    const counted = [true, 'true', '1'].includes(input.include_num_members as never);
    const { member, count } = await p.twin.read((view) => ({
      member: isMember(view, channel, p.user),
      count: counted && channel.is_im !== true ? peopleIn(view, p.team)(channel).length : undefined,
    }));
    const shown = renderChannel(channel, member, p.user);
    return ok({ channel: count === undefined ? shown : { ...shown, num_members: count } });
  }),
  route('conversations.list', 'read', async ({ principal: p, input }) => {
    const types = listTypes(input.types);
    const channels = await p.twin.read((view) => {
      const people = peopleIn(view, p.team);
      return channelKind
        .list(view)
        .filter(
          (c) =>
            c.team_id === p.team &&
            (c.is_im === true
              ? types.has('im') && isMember(view, c, p.user)
              : types.has('public_channel')),
        )
        .map((c) => {
          const shown = renderChannel(c, isMember(view, c, p.user), p.user);
          // Slack lists a channel with its member count (a DM has none).
          return c.is_im === true ? shown : { ...shown, num_members: people(c).length };
        });
    });
    const { items, next } = page(channels, input);
    return ok({ channels: items, response_metadata: { next_cursor: next } });
  }),
  route('conversations.members', 'read', async ({ principal: p, input }) => {
    const channel = await channelOf(p.twin, p, str(input, 'channel'));
    const members = await p.twin.read((view) => peopleIn(view, p.team)(channel));
    const { items, next } = page(members, input);
    return ok({ members: items, response_metadata: { next_cursor: next } });
  }),
  route(
    'conversations.create',
    'write',
    async ({ principal: p, input }) => {
      const channel = await createChannel(p.twin, {
        team: p.team,
        // Given but empty is the pack's invalid_name_required; only a missing name is an
        // argument error.
        name: typeof input.name === 'string' ? input.name : str(input, 'name'),
        creator: p.user,
      });
      return ok({ channel: renderChannel(channel) });
    },
    ['channel_created'],
  ),
  route(
    'conversations.join',
    'write',
    async ({ principal: p, input }) => {
      const channel = await channelOf(p.twin, p, str(input, 'channel'));
      try {
        await joinChannel(p.twin, { channel: channel.id, user: p.user });
      } catch (error) {
        // Joining a channel one is in already is a success on Slack, with a warning.
        if (!isVendorError(error) || error.vendorCode !== 'already_in_channel') throw error;
        return ok({ channel: renderChannel(channel), warning: 'already_in_channel' });
      }
      return ok({ channel: renderChannel(channel) });
    },
    ['member_joined_channel'],
  ),
  route(
    'conversations.leave',
    'write',
    async ({ principal: p, input }) => {
      const channel = await channelOf(p.twin, p, str(input, 'channel'));
      try {
        await leaveChannel(p.twin, { channel: channel.id, user: p.user });
      } catch (error) {
        // Leaving a channel one is not in is a success on Slack, saying so.
        if (!isVendorError(error) || error.vendorCode !== 'not_in_channel') throw error;
        return ok({ not_in_channel: true });
      }
      return ok({});
    },
    ['member_left_channel'],
  ),
  route('conversations.open', 'write', async ({ principal: p, input }) => {
    const full = input.return_im === 'true' || input.return_im === true;
    // Slack takes a DM's id instead of its people (resuming it), and names neither missing so.
    if (input.users === undefined && optionalStr(input, 'channel') !== undefined)
      return resumeDm(p, str(input, 'channel'), full);
    if (input.users === undefined)
      throw new SlackMethodError('users_list_not_supplied', 'users or channel is required');
    const users = str(input, 'users')
      .split(',')
      .map((u) => u.trim())
      .filter((u) => u !== '' && u !== p.user);
    if (users.length === 0)
      throw new SlackMethodError('not_enough_users', 'users must name someone besides the caller');
    // Group DMs (up to eight people) are not kept by this twin: one other person per DM.
    if (users.length > 1)
      throw new SlackMethodError(
        'too_many_users',
        'this twin opens one-to-one DMs: name one other user',
      );
    const { im, opened } = await openDirectMessage(p.twin, { user: p.user, other: users[0]! });
    const channel = full
      ? (await p.twin.read((view) => channelKind.read(view, im.id)))!
      : undefined;
    return ok({
      ...(opened ? {} : { no_op: true, already_open: true }),
      channel: channel === undefined ? { id: im.id } : renderIm(channel, p.user),
    });
  }),
];

/**
 * conversations.open given a DM's id: the caller's DM, open already (the twin never closes one);
 * a channel is not a conversation this method opens, and someone else's DM is not there.
 */
async function resumeDm(p: SlackPrincipal, id: string, full: boolean): Promise<JsonObject> {
  const channel = await channelOf(p.twin, p, id);
  if (channel.is_im !== true)
    throw new SlackMethodError(
      'method_not_supported_for_channel_type',
      `${id} is a channel, not a direct message`,
    );
  return ok({
    no_op: true,
    already_open: true,
    channel: full ? renderIm(channel, p.user) : { id: channel.id },
  });
}

/** The conversation types Slack lists; the twin keeps no private channels or group DMs. */
const CONVERSATION_TYPES: ReadonlySet<string> = new Set([
  'public_channel',
  'private_channel',
  'mpim',
  'im',
]);

/**
 * `types` as Slack takes it: a comma-separated list of public_channel (the default),
 * private_channel, mpim and im; any other value (or one that is not a string) is invalid_types,
 * as Slack answers, rather than an empty list.
 */
function listTypes(value: unknown): Set<string> {
  if (value === undefined || value === null || value === '') return new Set(['public_channel']);
  // Blank pieces ("public_channel,im,") are passed over.
  const types =
    typeof value === 'string'
      ? value
          .split(',')
          .map((t) => t.trim())
          .filter((t) => t !== '')
      : [];
  const unknown = types.find((t) => !CONVERSATION_TYPES.has(t));
  if (types.length === 0 || unknown !== undefined)
    throw new SlackMethodError(
      'invalid_types',
      `types takes public_channel, private_channel, mpim and im, comma-separated; not ${JSON.stringify(unknown ?? value)}`,
    );
  return new Set(types);
}

/**
 * The people of the workspace in a channel — what conversations.members lists and num_members
 * counts — for each channel of one read.
 */
function peopleIn(view: ReadView, team: string): (c: SlackChannel) => string[] {
  const people = userKind.list(view).filter((u) => u.team_id === team && !u.deleted);
  return (c) => people.filter((u) => isMember(view, c, u.id)).map((u) => u.id);
}

/** A channel's messages (thread replies too), and how to show each, read at one instant. */
function channelMessages(twin: Twin, channel: string) {
  return twin.read((view) => {
    const all = messageKind.lookup(view, CHANNEL_INDEX, channel);
    return { all, show: channelMessageView(view, channel, all) };
  });
}

/** Whether a ts falls within `oldest` / `latest` (each exclusive unless `inclusive`). */
function tsWindow(input: JsonObject): (ts: string) => boolean {
  const inclusive =
    input.inclusive === true || input.inclusive === 'true' || input.inclusive === '1';
  const oldest = tsBound(input.oldest, 'oldest');
  const latest = tsBound(input.latest, 'latest');
  return (ts) => {
    if (oldest === undefined && latest === undefined) return true;
    const at = tsValue(ts);
    return (
      (oldest === undefined || (inclusive ? at >= oldest : at > oldest)) &&
      (latest === undefined || (inclusive ? at <= latest : at < latest))
    );
  };
}
