// Legacy attachments beyond chat.postMessage, and what Slack answers around edits and deleted
// messages, through the unmodified @slack/web-api against a real host on loopback (SQLite):
// chat.update takes attachments alone or with text, keeps the old ones when left out and drops
// them given an empty array, and new text alone drops the old blocks (Slack's documented rules);
// chat.postEphemeral and chat.scheduleMessage take attachments, the scheduled post carrying them;
// reactions on a tombstone or a deleted message are message_not_found; conversations.open resumes
// a DM by its id. Each answer is checked with the stored message and the app's events.
import { WebClient } from '@slack/web-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHost, listen, type Listening, type SurfaceHost } from '../../src/host/index.js';
import { VirtualClock } from '../../src/world/clock.js';
import type { World } from '../../src/world/world.js';
import * as slack from '../../packs/slack/index.js';
import { botToken, slackSurface, userToken } from '../../packs/slack/surface/index.js';
import type { Twin } from '../../src/index.js';
import { homes } from '../support/backends.js';
import { openWorldAt } from '../support/world-at.js';
import { startReceiver, type Receiver } from '../support/receiver.js';

const sqlite = homes.find((h) => h.name === 'sqlite')!;
type Event = Record<string, unknown> & { message?: Record<string, unknown> };

describe('Slack attachments, edits and deleted messages through the SDK', () => {
  let world: World;
  let host: SurfaceHost;
  let listening: Listening;
  let twin: Twin;
  let cleanup: () => void;
  let receiver: Receiver;
  let api: string;
  let w: { team: string; ada: string; bob: string; general: string; app: slack.SlackApp };

  const client = (token: string) =>
    new WebClient(token, { slackApiUrl: api, retryConfig: { retries: 0 } });
  const ada = () => client(userToken(w.ada));
  const bob = () => client(userToken(w.bob));
  const bot = () => client(botToken(w.app.id));
  /** The Slack error a call answered. */
  const refusal = (call: Promise<unknown>) =>
    call.then(
      () => 'ok',
      (e: { data?: { error?: string } }) => e.data?.error ?? String(e),
    );
  const operations = async (op: string) =>
    (await twin.entries({})).filter((e) => e.operation === op).length;
  /** The stored message record at `ts` in #general. */
  const stored = async (ts: string) =>
    (await twin.get('message', `${w.general}:${ts}`))!.fields as Record<string, unknown>;
  /** The inner events the app was sent, in order. */
  const events = async (): Promise<Event[]> =>
    (await twin.list('event_delivery'))
      .sort((a, b) => a.version - b.version)
      .map((d) => (JSON.parse(String(d.fields.body)) as { event?: Event }).event)
      .filter((e): e is Event => e !== undefined);
  const changedOf = async (ts: string) =>
    (await events()).filter((e) => e.subtype === 'message_changed' && e.message?.ts === ts);
  const advance = async (ms: number) => {
    const r = await fetch(`${listening.url}/_twinworld/clock`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ advance_ms: ms }),
    });
    expect(r.status).toBe(200);
  };

  const card = [{ fallback: 'Deploy v1', color: '#36a64f', title: 'Deploy', text: 'v1 is live' }];
  const failed = [{ fallback: 'Deploy v1 failed', color: '#a30200', title: 'Deploy failed' }];

  beforeAll(async () => {
    const fresh = sqlite.fresh();
    cleanup = fresh.cleanup;
    world = openWorldAt(fresh.spec, {
      clock: new VirtualClock('2026-06-01T09:00:00Z'),
      seed: 'slack-attachments',
    });
    host = createHost({ world });
    twin = host.packTwin(slack.pack);
    host.serve(slackSurface({ twin }));
    listening = await listen(host);
    api = `${listening.url}/api/`;
    receiver = await startReceiver();
    const team = await slack.createTeam(twin, { name: 'Twinworld' });
    const a = await slack.createUser(twin, { team: team.id, name: 'ada' });
    const b = await slack.createUser(twin, { team: team.id, name: 'bob' });
    const general = await slack.createChannel(twin, {
      team: team.id,
      name: 'general',
      creator: a.id,
    });
    await slack.joinChannel(twin, { channel: general.id, user: b.id });
    const { app } = await slack.createApp(twin, {
      team: team.id,
      name: 'Helper',
      request_url: `${receiver.url}/slack/events`,
      bot_events: ['message.channels', 'reaction_added'],
    });
    await slack.joinChannel(twin, { channel: general.id, user: app.bot_user_id });
    w = { team: team.id, ada: a.id, bob: b.id, general: general.id, app };
  });
  afterAll(async () => {
    await listening?.close();
    await host?.close();
    await world?.close();
    await receiver?.close();
    cleanup?.();
  });

  it('chat.update takes attachments alone or with text; left out they stay, [] takes them away', async () => {
    const posted = await bot().chat.postMessage({ channel: w.general, text: 'deploying v1' });
    const at = { channel: w.general, ts: posted.ts! };
    // Attachments alone: the message's whole content, text now empty.
    const carded = await bot().chat.update({ ...at, attachments: card });
    expect(carded).toMatchObject({ ok: true, ts: posted.ts, text: '' });
    expect(carded.message).toMatchObject({ text: '', attachments: card });
    expect(await stored(posted.ts!)).toMatchObject({ text: '', attachments: card });
    // New text alone keeps the attachments, as Slack documents.
    const retold = await bot().chat.update({ ...at, text: 'v1 is out' });
    expect(retold.message).toMatchObject({ text: 'v1 is out', attachments: card });
    // Given with text, they replace the old ones.
    const both = await bot().chat.update({ ...at, text: 'v1 failed', attachments: failed });
    expect(both.message).toMatchObject({ text: 'v1 failed', attachments: failed });
    const history = (await ada().conversations.history({ channel: w.general, limit: 1 }))
      .messages![0]!;
    expect(history).toMatchObject({ ts: posted.ts, text: 'v1 failed', attachments: failed });
    // An empty array takes them away: gone from the record, the answer and the history.
    const cleared = await bot().chat.update({ ...at, text: 'v1 rolled back', attachments: [] });
    expect(cleared.message).toMatchObject({ text: 'v1 rolled back' });
    expect(cleared.message).not.toHaveProperty('attachments');
    expect(await stored(posted.ts!)).not.toHaveProperty('attachments');
    expect(
      (await ada().conversations.history({ channel: w.general, limit: 1 })).messages![0],
    ).not.toHaveProperty('attachments');
    // The app saw each edit as message_changed, the message now and before.
    const changed = await changedOf(posted.ts!);
    expect(changed.map((e) => [e.message!.text, e.message!.attachments])).toEqual([
      ['', card],
      ['v1 is out', card],
      ['v1 failed', failed],
      ['v1 rolled back', undefined],
    ]);
    expect(changed[0]!.previous_message).toMatchObject({ text: 'deploying v1' });
    expect(changed[3]!.previous_message).toMatchObject({ attachments: failed });
    // Refusals, each writing nothing: no content at all, bad attachments, too many.
    const edits = await operations('message.update');
    expect(await refusal(bot().chat.update({ ...at, attachments: [] }))).toBe('no_text');
    expect(await refusal(bot().chat.update({ ...at, attachments: [1] as never }))).toBe(
      'invalid_attachments',
    );
    expect(
      await refusal(
        bot().chat.update({
          ...at,
          attachments: Array.from({ length: 101 }, (_, i) => ({ fallback: `a${i}` })),
        }),
      ),
    ).toBe('too_many_attachments');
    expect(await operations('message.update')).toBe(edits);
  });

  it('chat.update with new text alone drops the old blocks; blocks alone keep the text out, [] clears them', async () => {
    const buttons = [
      {
        type: 'actions',
        elements: [
          { type: 'button', action_id: 'approve', text: { type: 'plain_text', text: 'Approve' } },
        ],
      },
    ];
    const posted = await bot().chat.postMessage({
      channel: w.general,
      text: 'Approve v2?',
      blocks: buttons,
      attachments: card,
    });
    const at = { channel: w.general, ts: posted.ts! };
    // The common "answered" edit: text alone, the buttons gone, the attachments kept.
    const answered = await bot().chat.update({ ...at, text: 'Approved by Ada' });
    expect(answered.message).toMatchObject({ text: 'Approved by Ada', attachments: card });
    expect(answered.message).not.toHaveProperty('blocks');
    expect(await stored(posted.ts!)).not.toHaveProperty('blocks');
    const [event] = await changedOf(posted.ts!);
    expect(event!.message).not.toHaveProperty('blocks');
    expect(event!.previous_message).toMatchObject({ blocks: buttons });
    // Blocks back; then attachments alone keep them (no text given), and [] clears them.
    await bot().chat.update({ ...at, blocks: buttons });
    const kept = await bot().chat.update({ ...at, attachments: failed });
    expect(kept.message).toMatchObject({ blocks: buttons, attachments: failed });
    const plain = await bot().chat.update({ ...at, text: 'done', blocks: [] });
    expect(plain.message).toMatchObject({ text: 'done', attachments: failed });
    expect(plain.message).not.toHaveProperty('blocks');
    expect(await refusal(bot().chat.update({ ...at, blocks: [] }))).toBe('no_text');
  });

  it('chat.postEphemeral takes attachments, kept on what the person was shown', async () => {
    const shown = await bot().chat.postEphemeral({
      channel: w.general,
      user: w.bob,
      attachments: card,
    });
    expect(shown.message_ts).toMatch(/^\d+\.\d{6}$/);
    const kept = (await twin.list('ephemeral_message')).find(
      (e) => e.fields.ts === shown.message_ts,
    );
    expect(kept!.fields).toMatchObject({ user: w.bob, text: '', attachments: card });
    expect(
      await refusal(bot().chat.postEphemeral({ channel: w.general, user: w.bob, attachments: [] })),
    ).toBe('no_text');
  });

  it('chat.scheduleMessage takes attachments and the message posts with them when due', async () => {
    const postAt = Math.floor(world.clock.now() / 1000) + 600;
    const scheduled = await bot().chat.scheduleMessage({
      channel: w.general,
      attachments: card,
      post_at: postAt,
    });
    expect(scheduled.message).toMatchObject({
      type: 'delayed_message',
      text: '',
      attachments: card,
    });
    await advance(600_000);
    const latest = (await ada().conversations.history({ channel: w.general, limit: 1 }))
      .messages![0]!;
    expect(latest).toMatchObject({ text: '', attachments: card, user: w.app.bot_user_id });
    expect(Number(latest.ts)).toBe(postAt);
    expect(await stored(latest.ts!)).toMatchObject({ attachments: card });
    const posted = (await events()).find((e) => e.type === 'message' && e.ts === latest.ts);
    expect(posted).toMatchObject({ text: '', attachments: card });
    expect(
      await refusal(
        bot().chat.scheduleMessage({ channel: w.general, attachments: [], post_at: postAt + 60 }),
      ),
    ).toBe('no_text');
  });

  it('reactions on a tombstone or a deleted message are message_not_found, and send nothing', async () => {
    const parent = await ada().chat.postMessage({ channel: w.general, text: 'outage?' });
    await bob().chat.postMessage({ channel: w.general, text: 'on it', thread_ts: parent.ts! });
    await ada().reactions.add({ channel: w.general, timestamp: parent.ts!, name: 'eyes' });
    await ada().chat.delete({ channel: w.general, ts: parent.ts! });
    expect(await stored(parent.ts!)).toMatchObject({ subtype: 'tombstone' });
    const lonely = await ada().chat.postMessage({ channel: w.general, text: 'anyone?' });
    await ada().chat.delete({ channel: w.general, ts: lonely.ts! });
    const added = await operations('reaction.add');
    const reactions = (await events()).filter((e) => e.type === 'reaction_added').length;
    for (const ts of [parent.ts!, lonely.ts!]) {
      const at = { channel: w.general, timestamp: ts };
      expect(await refusal(bob().reactions.add({ ...at, name: 'tada' }))).toBe('message_not_found');
      expect(await refusal(ada().reactions.remove({ ...at, name: 'eyes' }))).toBe(
        'message_not_found',
      );
    }
    expect(await operations('reaction.add')).toBe(added);
    expect((await events()).filter((e) => e.type === 'reaction_added').length).toBe(reactions);
  });

  it('conversations.open takes a DM id to resume it; neither users nor channel is users_list_not_supplied', async () => {
    const opened = await ada().conversations.open({ users: w.bob });
    const dm = opened.channel!.id!;
    expect(await ada().conversations.open({ channel: dm })).toMatchObject({
      ok: true,
      no_op: true,
      already_open: true,
      channel: { id: dm },
    });
    const full = await bob().conversations.open({ channel: dm, return_im: true });
    expect(full.channel).toMatchObject({ id: dm, is_im: true, user: w.ada });
    expect(await refusal(bot().conversations.open({ channel: dm }))).toBe('channel_not_found');
    expect(await refusal(ada().conversations.open({ channel: w.general }))).toBe(
      'method_not_supported_for_channel_type',
    );
    expect(await refusal(ada().conversations.open({} as never))).toBe('users_list_not_supplied');
  });
});
