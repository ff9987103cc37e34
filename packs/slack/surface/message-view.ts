// Messages as conversations.history and conversations.replies show them: with their reactions
// (`reactions: [{name, users, count}]`, in the order they were first given) and, on a thread's
// parent once it has replies, the thread's summary (`reply_count`, `reply_users`,
// `reply_users_count`, `latest_reply`, `thread_ts`); a reply names its parent's author
// (`parent_user_id`). Worked out when read, from the channel's messages and reactions.
import type { JsonObject, ReadView } from '../../../src/index.js';
import { REACTION_CHANNEL_INDEX } from '../activity.js';
import type { SlackMessage } from '../messages.js';
import { renderMessage } from './route.js';

type Reactions = Map<string, { name: string; users: string[] }[]>;

/** The live reactions in a channel, by message ts, each name once with its people in order. */
function reactionsIn(view: ReadView, channel: string): Reactions {
  const byTs: Reactions = new Map();
  // In the order given: a resource's version is the seq of the write that added it.
  const live = view
    .lookup('reaction', REACTION_CHANNEL_INDEX, channel)
    .sort((a, b) => a.version - b.version);
  for (const r of live) {
    const ts = String((r.fields.item as { ts: string }).ts);
    const name = String(r.fields.reaction);
    const list = byTs.get(ts) ?? [];
    const entry = list.find((e) => e.name === name);
    if (entry === undefined) list.push({ name, users: [String(r.fields.user)] });
    else entry.users.push(String(r.fields.user));
    byTs.set(ts, list);
  }
  return byTs;
}

/**
 * A renderer for messages of one channel; `all` is every message the channel holds (replies too),
 * which the thread summaries are counted from.
 */
export function channelMessageView(
  view: ReadView,
  channel: string,
  all: readonly SlackMessage[],
): (m: SlackMessage) => JsonObject {
  const reactions = reactionsIn(view, channel);
  const replies = new Map<string, SlackMessage[]>();
  const authors = new Map(all.map((m) => [m.ts, m.user]));
  for (const m of [...all].sort((a, b) => (a.ts < b.ts ? -1 : 1)))
    if (m.thread_ts !== undefined && m.thread_ts !== m.ts)
      replies.set(m.thread_ts, [...(replies.get(m.thread_ts) ?? []), m]);
  return (m) => {
    const shown = renderMessage(m);
    const given = reactions.get(m.ts);
    if (given !== undefined)
      shown.reactions = given.map((r) => ({ name: r.name, users: r.users, count: r.users.length }));
    const thread = replies.get(m.ts);
    if (thread !== undefined) {
      const users = [...new Set(thread.map((r) => r.user))];
      Object.assign(shown, {
        thread_ts: m.ts,
        reply_count: thread.length,
        reply_users: users,
        reply_users_count: users.length,
        latest_reply: thread[thread.length - 1]!.ts,
      });
    } else if (m.thread_ts !== undefined && m.thread_ts !== m.ts) {
      const parent = authors.get(m.thread_ts);
      if (parent !== undefined) shown.parent_user_id = parent;
    }
    return shown;
  };
}
