// Where the Slack surface once differed from Slack, through the unmodified @slack/web-api against a
// real host on loopback (SQLite): channel names are unique and checked fault by fault, `channel`
// takes a name or a user id where Slack takes one, history shows reactions and thread summaries,
// unknown emoji are refused, a missing argument is an argument error, ephemeral ts are unique, a
// message may be blocks alone, channels show their member count, replies take oldest / latest.
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

describe('the Slack surface answers as Slack does', () => {
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
  const bot = () => client(botToken(w.app.id));
  /** The Slack error a call answered. */
  const refusal = (call: Promise<unknown>) =>
    call.then(
      () => 'ok',
      (e: { data?: { error?: string } }) => e.data?.error ?? String(e),
    );
  const operations = async (op: string) =>
    (await twin.entries({})).filter((e) => e.operation === op).length;

  beforeAll(async () => {
    const fresh = sqlite.fresh();
    cleanup = fresh.cleanup;
    world = openWorldAt(fresh.spec, {
      clock: new VirtualClock('2026-06-01T09:00:00Z'),
      seed: 'slack-fidelity',
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
      bot_events: ['message.channels', 'message.im', 'channel_created'],
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

  it('conversations.create: a taken name is name_taken, and no second channel or channel_created', async () => {
    const first = await ada().conversations.create({ name: 'proj-alpha' });
    const created = await operations('channel.create');
    const events = (await twin.list('event_delivery')).length;
    expect(await refusal(ada().conversations.create({ name: 'proj-alpha' }))).toBe('name_taken');
    expect(await refusal(bot().conversations.create({ name: 'general' }))).toBe('name_taken');
    expect(await operations('channel.create')).toBe(created);
    expect((await twin.list('event_delivery')).length).toBe(events);
    const named = (await ada().conversations.list({})).channels!.filter(
      (c) => c.name === 'proj-alpha',
    );
    expect(named.map((c) => c.id)).toEqual([first.channel!.id]);
  });

  it('conversations.create: each fault of a name has its own error, an 81-character one too', async () => {
    expect(await refusal(ada().conversations.create({ name: 'x'.repeat(81) }))).toBe(
      'invalid_name_maxlength',
    );
    expect(await refusal(ada().conversations.create({ name: 'Proj Beta' }))).toBe(
      'invalid_name_specials',
    );
    expect(await refusal(ada().conversations.create({ name: '--' }))).toBe(
      'invalid_name_punctuation',
    );
    expect(await refusal(ada().conversations.create({ name: '' }))).toBe('invalid_name_required');
    expect(await refusal(ada().conversations.create({} as never))).toBe('invalid_arguments');
    // 80 characters is still a name.
    expect((await ada().conversations.create({ name: 'y'.repeat(80) })).ok).toBe(true);
  });
  it('chat.postMessage takes a channel name (#general or general) or a person id (the DM, opened at need)', async () => {
    const byHash = await bot().chat.postMessage({ channel: '#general', text: 'by #name' });
    const byName = await bot().chat.postMessage({ channel: 'general', text: 'by name' });
    expect([byHash.channel, byName.channel]).toEqual([w.general, w.general]);
    const inGeneral = (await ada().conversations.history({ channel: w.general })).messages!;
    expect(inGeneral.map((m) => m.text)).toEqual(expect.arrayContaining(['by #name', 'by name']));
    // A person's id: the app's DM with them, the one conversations.open answers.
    const dm = await bot().chat.postMessage({ channel: w.bob, text: 'hello bob' });
    expect(dm.channel).toMatch(/^D[0-9A-Z]{10}$/);
    const opened = await bot().conversations.open({ users: w.bob });
    expect(opened.channel!.id).toBe(dm.channel);
    const again = await bot().chat.postMessage({ channel: w.bob, text: 'again' });
    expect(again.channel).toBe(dm.channel);
    const history = await client(userToken(w.bob)).conversations.history({ channel: dm.channel! });
    expect(history.messages!.map((m) => m.text)).toEqual(['again', 'hello bob']);
    // A person posting to another person's id: their DM.
    const between = await ada().chat.postMessage({ channel: w.bob, text: 'hi from ada' });
    expect(between.channel).toBe((await ada().conversations.open({ users: w.bob })).channel!.id);
    expect(between.channel).not.toBe(dm.channel);
  });

  it('a name or id that names nothing is channel_not_found; update, delete and permalinks take the id only', async () => {
    expect(await refusal(bot().chat.postMessage({ channel: '#nowhere', text: 'x' }))).toBe(
      'channel_not_found',
    );
    expect(await refusal(bot().chat.postMessage({ channel: 'nowhere', text: 'x' }))).toBe(
      'channel_not_found',
    );
    expect(await refusal(bot().chat.postMessage({ channel: 'U0000000000', text: 'x' }))).toBe(
      'channel_not_found',
    );
    // No text: refused before any DM is opened.
    const ims = (await twin.list('im')).length;
    const carol = await slack.createUser(twin, { team: w.team, name: 'carol' });
    expect(await refusal(bot().chat.postMessage({ channel: carol.id } as never))).toBe('no_text');
    expect((await twin.list('im')).length).toBe(ims);
    const posted = await bot().chat.postMessage({ channel: w.general, text: 'mine' });
    expect(
      await refusal(bot().chat.update({ channel: '#general', ts: posted.ts!, text: 'edited' })),
    ).toBe('channel_not_found');
    expect(await refusal(bot().chat.delete({ channel: 'general', ts: posted.ts! }))).toBe(
      'channel_not_found',
    );
    expect(
      await refusal(bot().chat.getPermalink({ channel: '#general', message_ts: posted.ts! })),
    ).toBe('channel_not_found');
  });

  it('chat.postEphemeral and chat.scheduleMessage take a channel name too, a person id not', async () => {
    const shown = await bot().chat.postEphemeral({
      channel: '#general',
      user: w.bob,
      text: 'psst',
    });
    expect(shown.ok).toBe(true);
    const postAt = Math.floor(Date.parse('2026-06-01T10:00:00Z') / 1000);
    const scheduled = await bot().chat.scheduleMessage({
      channel: 'general',
      post_at: postAt,
      text: 'later',
    });
    expect(scheduled.channel).toBe(w.general);
    expect(
      await refusal(bot().chat.postEphemeral({ channel: w.bob, user: w.bob, text: 'psst' })),
    ).toBe('channel_not_found');
  });
  it('history and replies show reactions as Slack does: each name once, its people in order, a count', async () => {
    const bob = client(userToken(w.bob));
    const posted = await ada().chat.postMessage({ channel: w.general, text: 'shipped' });
    const at = { channel: w.general, timestamp: posted.ts! };
    await ada().reactions.add({ ...at, name: 'tada' });
    await bob.reactions.add({ ...at, name: 'eyes' });
    await bob.reactions.add({ ...at, name: 'tada' });
    await bot().reactions.add({ ...at, name: '+1::skin-tone-3' });
    const expected = [
      { name: 'tada', users: [w.ada, w.bob], count: 2 },
      { name: 'eyes', users: [w.bob], count: 1 },
      { name: '+1::skin-tone-3', users: [w.app.bot_user_id], count: 1 },
    ];
    const inHistory = async () =>
      (await ada().conversations.history({ channel: w.general })).messages!.find(
        (m) => m.ts === posted.ts,
      )!;
    expect((await inHistory()).reactions).toEqual(expected);
    const inReplies = (await bob.conversations.replies({ channel: w.general, ts: posted.ts! }))
      .messages![0]!;
    expect(inReplies.reactions).toEqual(expected);
    // Taken back: gone from the list, and a name nobody holds any more is gone entirely.
    await bob.reactions.remove({ ...at, name: 'eyes' });
    await bob.reactions.remove({ ...at, name: 'tada' });
    expect((await inHistory()).reactions).toEqual([
      { name: 'tada', users: [w.ada], count: 1 },
      expected[2],
    ]);
    // A message nobody reacted to has no reactions field, as on Slack.
    const plain = await ada().chat.postMessage({ channel: w.general, text: 'plain' });
    const shown = (await ada().conversations.history({ channel: w.general, limit: 1 }))
      .messages![0]!;
    expect(shown.ts).toBe(plain.ts);
    expect(shown).not.toHaveProperty('reactions');
  });

  it('a thread parent carries reply_count, reply_users, reply_users_count, latest_reply and thread_ts', async () => {
    const bob = client(userToken(w.bob));
    const parent = await ada().chat.postMessage({ channel: w.general, text: 'deploy?' });
    const before = (await ada().conversations.history({ channel: w.general, limit: 1 }))
      .messages![0]!;
    expect(before.ts).toBe(parent.ts);
    for (const key of ['reply_count', 'reply_users', 'latest_reply', 'thread_ts'])
      expect(before).not.toHaveProperty(key);
    const thread = { channel: w.general, thread_ts: parent.ts! };
    await bob.chat.postMessage({ ...thread, text: 'yes' });
    await bot().chat.postMessage({ ...thread, text: 'deploying' });
    const last = await bob.chat.postMessage({ ...thread, text: 'done?' });
    const summary = {
      thread_ts: parent.ts,
      reply_count: 3,
      reply_users: [w.bob, w.app.bot_user_id],
      reply_users_count: 2,
      latest_reply: last.ts,
    };
    const head = (await ada().conversations.history({ channel: w.general, limit: 1 }))
      .messages![0]!;
    expect(head).toMatchObject(summary);
    const replies = (await ada().conversations.replies({ channel: w.general, ts: parent.ts! }))
      .messages!;
    expect(replies[0]).toMatchObject(summary);
    expect(replies.slice(1).map((m) => [m.thread_ts, m.parent_user_id])).toEqual([
      [parent.ts, w.ada],
      [parent.ts, w.ada],
      [parent.ts, w.ada],
    ]);
    expect(replies[1]).not.toHaveProperty('reply_count');
  });

  it('reactions.add refuses a name that is no standard emoji (invalid_name), and writes nothing', async () => {
    const posted = await ada().chat.postMessage({ channel: w.general, text: 'react to me' });
    const at = { channel: w.general, timestamp: posted.ts! };
    const added = await operations('reaction.add');
    for (const name of ['not_an_emoji_zzz', 'tada::skin-tone-7', 'Tada', 'flag-gbr'])
      expect(await refusal(ada().reactions.add({ ...at, name }))).toBe('invalid_name');
    expect(await operations('reaction.add')).toBe(added);
    for (const name of [
      'white_check_mark',
      'thumbsup',
      '-1',
      'flag-gb',
      'wave::skin-tone-6',
      'santa',
      'flag-england',
      'us',
    ])
      expect((await ada().reactions.add({ ...at, name })).ok).toBe(true);
  });
  it('a missing required argument is invalid_arguments naming it; a channel given empty is channel_not_found', async () => {
    const missing = await ada()
      .conversations.info({} as never)
      .then(
        () => undefined,
        (e: { data: unknown }) => e.data,
      );
    expect(missing).toMatchObject({
      ok: false,
      error: 'invalid_arguments',
      response_metadata: { messages: ['[ERROR] missing required field: channel'] },
    });
    expect(await refusal(ada().conversations.history({} as never))).toBe('invalid_arguments');
    expect(await refusal(ada().conversations.replies({ channel: w.general } as never))).toBe(
      'invalid_arguments',
    );
    expect(await refusal(bot().chat.postMessage({ text: 'where?' } as never))).toBe(
      'invalid_arguments',
    );
    expect(await refusal(ada().conversations.info({ channel: '' }))).toBe('channel_not_found');
    expect(await refusal(ada().conversations.info({ channel: 'C0000000000' }))).toBe(
      'channel_not_found',
    );
  });
  it('chat.postEphemeral answers a message_ts no message or other ephemeral message of the channel holds', async () => {
    // The world clock stands still here, so every post below falls in the same millisecond.
    const posted = await bot().chat.postMessage({ channel: w.general, text: 'for all' });
    const toBob = await bot().chat.postEphemeral({ channel: w.general, user: w.bob, text: 'b' });
    const toAda = await bot().chat.postEphemeral({ channel: w.general, user: w.ada, text: 'a' });
    const after = await bot().chat.postMessage({ channel: w.general, text: 'for all, again' });
    const ephemeral = [toBob.message_ts, toAda.message_ts];
    expect(new Set([posted.ts, ...ephemeral, after.ts]).size).toBe(4);
    // Nor any message before them (in this file, all in this millisecond too).
    const all = (await ada().conversations.history({ channel: w.general, limit: 1000 })).messages!;
    for (const ts of ephemeral) expect(all.map((m) => m.ts)).not.toContain(ts);
    // Ephemeral messages never enter the history.
    expect(all.slice(0, 2).map((m) => m.ts)).toEqual([after.ts, posted.ts]);
  });
  it('a message may be blocks alone (text is only their fallback); blank text alone is no_text', async () => {
    const blocks = [{ type: 'section', text: { type: 'mrkdwn', text: '*Deploy* done' } }];
    const posted = await bot().chat.postMessage({ channel: w.general, blocks });
    expect(posted.message).toMatchObject({ text: '', blocks });
    const history = await ada().conversations.history({ channel: w.general, limit: 1 });
    expect(history.messages![0]).toMatchObject({ ts: posted.ts, blocks });
    // chat.update with blocks alone; with text too the blocks stay. (Text alone drops them, as
    // Slack documents: slack-attachments.test.ts.)
    const next = [{ type: 'section', text: { type: 'mrkdwn', text: '*Deploy* rolled back' } }];
    const updated = await bot().chat.update({ channel: w.general, ts: posted.ts!, blocks: next });
    expect(updated.message).toMatchObject({ blocks: next });
    const retitled = await bot().chat.update({
      channel: w.general,
      ts: posted.ts!,
      text: 'fb',
      blocks: next,
    });
    expect(retitled.message).toMatchObject({ text: 'fb', blocks: next });
    const whisper = await bot().chat.postEphemeral({ channel: w.general, user: w.ada, blocks });
    expect(whisper.message_ts).toMatch(/^\d+\.\d{6}$/);
    const later = await bot().chat.scheduleMessage({
      channel: w.general,
      blocks,
      post_at: Math.floor(Date.parse('2026-06-02T09:00:00Z') / 1000),
    });
    expect(later.message).toMatchObject({ text: '', blocks });
    await bot().chat.deleteScheduledMessage({
      channel: w.general,
      scheduled_message_id: later.scheduled_message_id!,
    });
    // Neither blocks nor any text: no_text, on every method that posts or edits.
    const at = { channel: w.general, text: '' };
    expect(await refusal(bot().chat.postMessage(at))).toBe('no_text');
    expect(await refusal(bot().chat.postMessage({ ...at, text: '  ' }))).toBe('no_text');
    expect(await refusal(bot().chat.update({ ...at, ts: posted.ts! }))).toBe('no_text');
    expect(await refusal(bot().chat.postEphemeral({ ...at, user: w.ada }))).toBe('no_text');
    expect(await refusal(bot().chat.scheduleMessage({ ...at, post_at: later.post_at! }))).toBe(
      'no_text',
    );
  });
  it('conversations.list shows each channel with num_members; conversations.info when include_num_members', async () => {
    // #general: ada (its creator), bob and the app's bot.
    const listed = await ada().conversations.list({});
    const general = listed.channels!.find((c) => c.id === w.general)!;
    const members = (await ada().conversations.members({ channel: w.general })).members!;
    expect(general.num_members).toBe(members.length);
    expect(members).toHaveLength(3);
    const info = await ada().conversations.info({ channel: w.general, include_num_members: true });
    expect(info.channel!.num_members).toBe(3);
    expect((await ada().conversations.info({ channel: w.general })).channel).not.toHaveProperty(
      'num_members',
    );
    // A channel made by the bot: its creator, then whoever joins, less whoever leaves.
    const made = (await bot().conversations.create({ name: 'counted' })).channel!.id!;
    const count = async () =>
      (await ada().conversations.list({ limit: 1000 })).channels!.find((c) => c.id === made)!
        .num_members;
    expect(await count()).toBe(1);
    await ada().conversations.join({ channel: made });
    expect(await count()).toBe(2);
    await bot().conversations.leave({ channel: made });
    expect(await count()).toBe(1);
    // A DM has no member count.
    const im = (await ada().conversations.open({ users: w.bob })).channel!.id!;
    const ims = await ada().conversations.list({ types: 'im' });
    expect(ims.channels!.find((c) => c.id === im)).not.toHaveProperty('num_members');
  });
  it('conversations.list refuses a types value Slack does not know with invalid_types', async () => {
    for (const types of ['bogus', 'public_channel,bogus', 'channels', ','])
      expect(await refusal(ada().conversations.list({ types }))).toBe('invalid_types');
    // Each type Slack knows is taken; the twin keeps no private channels or group DMs.
    expect((await ada().conversations.list({ types: 'private_channel,mpim' })).channels).toEqual(
      [],
    );
    const im = (await ada().conversations.open({ users: w.bob })).channel!.id!;
    const both = (await ada().conversations.list({ types: 'public_channel, im,' })).channels!;
    expect(both.map((c) => c.id)).toEqual(expect.arrayContaining([w.general, im]));
  });
  it('chat.postMessage takes legacy attachments as the whole content, keeping them as given', async () => {
    const attachments = [
      { fallback: 'Deploy v1 done', color: '#36a64f', title: 'Deploy', text: 'v1 is live' },
    ];
    const posted = await bot().chat.postMessage({ channel: w.general, attachments });
    expect(posted).toMatchObject({ ok: true, message: { text: '', attachments } });
    const history = (await ada().conversations.history({ channel: w.general })).messages!;
    expect(history.find((m) => m.ts === posted.ts)).toMatchObject({ text: '', attachments });
    // The app's message event carries them too.
    const body = (await twin.list('event_delivery'))
      .map((d) => JSON.parse(String(d.fields.body)) as { event?: Record<string, unknown> })
      .find((b) => b.event?.ts === posted.ts && b.event?.type === 'message');
    expect(body!.event).toMatchObject({ text: '', attachments });
    // With text, the text leads and the attachments follow.
    const both = await bot().chat.postMessage({ channel: w.general, text: 'hi', attachments });
    expect(both.message).toMatchObject({ text: 'hi', attachments });
    // Refusals, each appending nothing.
    const posts = await operations('message.post');
    expect(await refusal(bot().chat.postMessage({ channel: w.general, attachments: [] }))).toBe(
      'no_text',
    );
    expect(
      await refusal(bot().chat.postMessage({ channel: w.general, attachments: [1] as never })),
    ).toBe('invalid_attachments');
    expect(
      await refusal(
        bot().chat.postMessage({ channel: w.general, attachments: { text: 'x' } as never }),
      ),
    ).toBe('invalid_attachments');
    expect(
      await refusal(
        bot().chat.postMessage({
          channel: w.general,
          attachments: Array.from({ length: 101 }, (_, i) => ({ fallback: `a${i}` })),
        }),
      ),
    ).toBe('too_many_attachments');
    expect(await operations('message.post')).toBe(posts);
  });
  it('chat.postMessage with reply_broadcast shows the reply in the channel too, as thread_broadcast', async () => {
    const parent = await ada().chat.postMessage({ channel: w.general, text: 'release?' });
    const shipped = await bot().chat.postMessage({
      channel: w.general,
      text: 'shipped',
      thread_ts: parent.ts!,
      reply_broadcast: true,
    });
    expect(shipped.message).toMatchObject({ subtype: 'thread_broadcast', thread_ts: parent.ts });
    const quiet = await bot().chat.postMessage({
      channel: w.general,
      text: 'quiet',
      thread_ts: parent.ts!,
    });
    expect(quiet.message).not.toHaveProperty('subtype');
    const history = (await ada().conversations.history({ channel: w.general, limit: 1000 }))
      .messages!;
    expect(history.find((m) => m.ts === shipped.ts)).toMatchObject({
      subtype: 'thread_broadcast',
      text: 'shipped',
      thread_ts: parent.ts,
    });
    expect(history.map((m) => m.ts)).not.toContain(quiet.ts);
    expect(history.find((m) => m.ts === parent.ts)).toMatchObject({ reply_count: 2 });
    const thread = await ada().conversations.replies({ channel: w.general, ts: parent.ts! });
    expect(thread.messages!.map((m) => m.text)).toEqual(['release?', 'shipped', 'quiet']);
    // The app's message event: subtype thread_broadcast, the thread's parent as root.
    const body = (await twin.list('event_delivery'))
      .map((d) => JSON.parse(String(d.fields.body)) as { event?: Record<string, unknown> })
      .find((b) => b.event?.ts === shipped.ts);
    expect(body!.event).toMatchObject({
      type: 'message',
      subtype: 'thread_broadcast',
      thread_ts: parent.ts,
      root: {
        text: 'release?',
        user: w.ada,
        ts: parent.ts,
        thread_ts: parent.ts,
        reply_count: 1,
        reply_users: [w.app.bot_user_id],
        latest_reply: shipped.ts,
      },
    });
    // Slack ignores reply_broadcast on a message that is not a reply.
    const alone = await bot().chat.postMessage({
      channel: w.general,
      text: 'alone',
      reply_broadcast: true,
    } as never);
    expect(alone.message).not.toHaveProperty('subtype');
    // A broadcast to a thread that is not there is refused, appending nothing.
    const posts = await operations('message.post');
    expect(
      await refusal(
        bot().chat.postMessage({
          channel: w.general,
          text: 'lost',
          thread_ts: '1.000001',
          reply_broadcast: true,
        }),
      ),
    ).toBe('thread_not_found');
    expect(await operations('message.post')).toBe(posts);
  });
  it('conversations.replies takes oldest, latest and inclusive for the replies; the parent still leads', async () => {
    const parent = await ada().chat.postMessage({ channel: w.general, text: 'polled thread' });
    const reply = async (text: string) =>
      (await bot().chat.postMessage({ channel: w.general, text, thread_ts: parent.ts! })).ts!;
    const [r1, r2, r3] = [await reply('one'), await reply('two'), await reply('three')];
    const texts = async (q: { oldest?: string; latest?: string; inclusive?: boolean }) =>
      (
        await ada().conversations.replies({ channel: w.general, ts: parent.ts!, ...q })
      ).messages!.map((m) => m.text);
    expect(await texts({})).toEqual(['polled thread', 'one', 'two', 'three']);
    // A poller asks for what came after the last reply it saw.
    expect(await texts({ oldest: r1 })).toEqual(['polled thread', 'two', 'three']);
    expect(await texts({ oldest: r3 })).toEqual(['polled thread']);
    expect(await texts({ oldest: r1, inclusive: true })).toEqual([
      'polled thread',
      'one',
      'two',
      'three',
    ]);
    expect(await texts({ latest: r2 })).toEqual(['polled thread', 'one']);
    expect(await texts({ oldest: r1, latest: r3, inclusive: true })).toEqual([
      'polled thread',
      'one',
      'two',
      'three',
    ]);
    expect(
      await refusal(ada().conversations.replies({ channel: w.general, ts: r2, oldest: 'soon' })),
    ).toBe('invalid_ts_oldest');
  });
});
