// The rest of the Slack Web API surface through the unmodified @slack/web-api (only slackApiUrl
// set, default retries on) and a Bolt app, on a real host on loopback, on SQLite and PostgreSQL:
// apps.manifest.create verifies the new app's Request URL before any event; chat.update / delete /
// postEphemeral / getPermalink / scheduleMessage (posted when the world clock reaches it, its
// events verified by Bolt); conversations.replies / members / open; users.list / lookupByEmail;
// views.update; 1,000 read calls append nothing; the log replays and holds no token or secret.
import { App, HTTPReceiver } from '@slack/bolt';
import { WebClient } from '@slack/web-api';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHost, listen, type Listening, type SurfaceHost } from '../../src/host/index.js';
import { VirtualClock } from '../../src/world/clock.js';
import { replayLines } from '../../src/world/replay.js';
import type { World } from '../../src/world/world.js';
import * as slack from '../../packs/slack/index.js';
import { botToken, slackSurface, userToken } from '../../packs/slack/surface/index.js';
import type { Twin } from '../../src/index.js';
import { collect, homes } from '../support/backends.js';
import { openWorldAt } from '../support/world-at.js';

async function until<T>(
  what: string,
  probe: () => T | undefined | Promise<T | undefined>,
): Promise<T> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const got = await probe();
    if (got !== undefined) return got;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

type Listener = (req: IncomingMessage, res: ServerResponse) => void;

describe.each(homes)('the rest of the Slack Web API through the SDK and Bolt ($name)', (home) => {
  let world: World;
  let host: SurfaceHost;
  let listening: Listening;
  let twin: Twin;
  let cleanup: () => void;
  let api: string;
  let gate: Server;
  let appUrl: string;
  let signingSecret = '';
  let appId = '';
  let botUser = '';
  let threadTs = '';
  const seen: { type: string; subtype?: string; text?: string }[] = [];
  let w: { team: string; ada: string; bob: string; carol: string; general: string };
  let calls = 0;

  const countingFetch: typeof fetch = (input, init) => {
    calls++;
    return fetch(input, init);
  };
  const client = (token: string) =>
    new WebClient(token, { slackApiUrl: api, fetch: countingFetch });
  const bot = () => client(botToken(appId));
  const ada = () => client(userToken(w.ada));
  const deliveries = () => twin.list('event_delivery');
  const settled = () =>
    until('deliveries to settle', async () => {
      const all = await deliveries();
      return all.every((d) => d.fields.state === 'succeeded' || d.fields.state === 'failed')
        ? all
        : undefined;
    });
  const advance = async (ms: number) => {
    const r = await fetch(`${listening.url}/_twinworld/clock`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ advance_ms: ms }),
    });
    expect(r.status).toBe(200);
  };

  // The app's HTTP server starts before the app exists; Bolt takes its requests once
  // apps.manifest.create has answered the signing secret (a request held until then).
  let boltListener: Listener | undefined;
  let boltReady: (l: Listener) => void;
  const ready = new Promise<Listener>((resolve) => (boltReady = resolve));

  beforeAll(async () => {
    const fresh = home.fresh();
    cleanup = fresh.cleanup;
    world = openWorldAt(fresh.spec, { clock: new VirtualClock(Date.now()), seed: 'slack-more' });
    host = createHost({ world });
    twin = host.packTwin(slack.pack);
    host.serve(slackSurface({ twin }));
    listening = await listen(host);
    api = `${listening.url}/api/`;
    const team = await slack.createTeam(twin, { name: 'Twinworld' });
    const person = (name: string, real: string) =>
      slack.createUser(twin, {
        team: team.id,
        name,
        real_name: real,
        email: `${name}@example.com`,
      });
    const a = await person('ada', 'Ada Lovelace');
    const b = await person('bob', 'Bob Kahn');
    const c = await person('carol', 'Carol Shaw');
    const general = await slack.createChannel(twin, {
      team: team.id,
      name: 'general',
      creator: a.id,
    });
    await slack.joinChannel(twin, { channel: general.id, user: b.id });
    w = { team: team.id, ada: a.id, bob: b.id, carol: c.id, general: general.id };
    gate = createServer((req, res) => {
      if (boltListener !== undefined) return boltListener(req, res);
      void ready.then((l) => l(req, res));
    });
    await new Promise<void>((r) => gate.listen(0, '127.0.0.1', r));
    appUrl = `http://127.0.0.1:${(gate.address() as AddressInfo).port}/slack/events`;
  });
  afterAll(async () => {
    await new Promise((r) => gate?.close(r));
    await listening?.close();
    await host?.close();
    await world?.close();
    cleanup?.();
  });

  it('apps.manifest.create makes the app and sends url_verification before any event; Bolt verifies it', async () => {
    // Refusals first: a bot token, a manifest without a Request URL.
    await expect(
      client(userToken(w.ada)).apps.manifest.create({ manifest: { settings: {} } as never }),
    ).rejects.toMatchObject({ data: { ok: false, error: 'invalid_manifest' } });
    const created = await ada().apps.manifest.create({
      manifest: {
        display_information: { name: 'Deployer' },
        settings: {
          event_subscriptions: {
            request_url: appUrl,
            bot_events: [
              'message.channels',
              'message.im',
              'app_mention',
              'reaction_added',
              'member_left_channel',
              'user_change',
            ],
          },
        },
      } as never,
    });
    expect(created).toMatchObject({ ok: true, app_id: expect.stringMatching(/^A[0-9A-Z]{10}$/) });
    appId = created.app_id!;
    signingSecret = created.credentials!.signing_secret!;
    expect(signingSecret).toMatch(/^[0-9a-f]{32}$/);
    const receiver = new HTTPReceiver({
      signingSecret,
      endpoints: '/slack/events',
      processBeforeResponse: true,
    });
    const app = new App({ receiver, token: botToken(appId), clientOptions: { slackApiUrl: api } });
    for (const type of ['message', 'app_mention'] as const)
      app.event(type, async ({ event }) => {
        const e = event as { text?: string; subtype?: string; channel_type?: string };
        if (e.channel_type === 'im') {
          seen.push({ type: 'message.im', text: e.text ?? '' });
          return;
        }
        seen.push({
          type: event.type,
          text: e.text ?? '',
          ...(e.subtype ? { subtype: e.subtype } : {}),
        });
      });
    app.event('member_left_channel', async ({ event }) => {
      seen.push({ type: event.type, text: `${event.user} left ${event.channel}` });
    });
    app.event('user_change', async ({ event }) => {
      seen.push({ type: event.type, text: event.user.real_name });
    });
    boltListener = receiver.requestListener;
    boltReady(receiver.requestListener);
    const [verification] = await settled();
    expect(await deliveries()).toHaveLength(1);
    expect(verification!.fields).toMatchObject({
      eventType: 'url_verification',
      url: appUrl,
      state: 'succeeded',
      attempts: 1,
    });
    botUser = (await bot().auth.test()).user_id!;
    await expect(
      bot().apps.manifest.create({
        manifest: {
          display_information: { name: 'Again' },
          settings: { event_subscriptions: { request_url: appUrl } },
        } as never,
      }),
    ).rejects.toMatchObject({ data: { error: 'not_allowed_token_type' } });
  });

  it('chat.update, chat.delete, chat.getPermalink and conversations.replies over a thread', async () => {
    const parent = await bot().chat.postMessage({ channel: w.general, text: 'release v1?' });
    threadTs = parent.ts!;
    const replies: string[] = [];
    for (const text of ['one', 'two', 'three']) {
      const r = await ada().chat.postMessage({ channel: w.general, text, thread_ts: parent.ts! });
      replies.push(r.ts!);
    }
    const updated = await bot().chat.update({
      channel: w.general,
      ts: parent.ts!,
      text: 'release v1.1?',
    });
    expect(updated).toMatchObject({ ok: true, ts: parent.ts, text: 'release v1.1?' });
    expect(updated.message).toMatchObject({ edited: { user: botUser } });
    // Only the author edits or deletes.
    await expect(
      ada().chat.update({ channel: w.general, ts: parent.ts!, text: 'mine now' }),
    ).rejects.toMatchObject({ data: { error: 'cant_update_message' } });
    await expect(ada().chat.delete({ channel: w.general, ts: parent.ts! })).rejects.toMatchObject({
      data: { error: 'cant_delete_message' },
    });
    const link = await ada().chat.getPermalink({ channel: w.general, message_ts: parent.ts! });
    expect(link.permalink).toBe(
      `${listening.url}/archives/${w.general}/p${parent.ts!.replace('.', '')}`,
    );
    const replyLink = await ada().chat.getPermalink({
      channel: w.general,
      message_ts: replies[0]!,
    });
    expect(replyLink.permalink).toContain(`?thread_ts=${parent.ts}&cid=${w.general}`);
    const pages: string[][] = [];
    for await (const page of ada().paginate('conversations.replies', {
      channel: w.general,
      ts: replies[1]!,
      limit: 2,
    }))
      pages.push(((page as { messages?: { text: string }[] }).messages ?? []).map((m) => m.text));
    expect(pages).toEqual([
      ['release v1.1?', 'one'],
      ['two', 'three'],
    ]);
    await ada().chat.delete({ channel: w.general, ts: replies[1]! });
    await expect(ada().chat.delete({ channel: w.general, ts: replies[1]! })).rejects.toMatchObject({
      data: { error: 'message_not_found' },
    });
    const thread = await ada().conversations.replies({ channel: w.general, ts: parent.ts! });
    expect(thread.messages!.map((m) => m.text)).toEqual(['release v1.1?', 'one', 'three']);
    await expect(
      ada().conversations.replies({ channel: w.general, ts: '1.000001' }),
    ).rejects.toMatchObject({ data: { error: 'thread_not_found' } });
    const history = await ada().conversations.history({ channel: w.general });
    expect(history.messages!.map((m) => m.text)).not.toContain('two');
    // The edit and the deletion reach the app as message subtypes, verified by Bolt.
    const subtypes = await until('message_changed and message_deleted at Bolt', () => {
      const got = seen.flatMap((e) => (e.subtype === undefined ? [] : [e.subtype]));
      return got.length >= 2 ? got : undefined;
    });
    expect(subtypes).toEqual(['message_changed', 'message_deleted']);
  });

  it('chat.delete on a thread parent with replies leaves a tombstone; one without is gone', async () => {
    seen.length = 0;
    const bob = () => client(userToken(w.bob));
    const parent = await ada().chat.postMessage({ channel: w.general, text: 'outage?' });
    const lonely = await ada().chat.postMessage({ channel: w.general, text: 'anyone?' });
    const r1 = await bob().chat.postMessage({
      channel: w.general,
      text: 'on it',
      thread_ts: parent.ts!,
    });
    const r2 = await ada().chat.postMessage({
      channel: w.general,
      text: 'thanks',
      thread_ts: parent.ts!,
    });
    expect(await ada().chat.delete({ channel: w.general, ts: parent.ts! })).toMatchObject({
      ok: true,
      channel: w.general,
      ts: parent.ts,
    });
    const tombstone = {
      type: 'message',
      subtype: 'tombstone',
      text: 'This message was deleted.',
      user: 'USLACKBOT',
      hidden: true,
      ts: parent.ts,
      thread_ts: parent.ts,
      reply_count: 2,
      reply_users: [w.bob, w.ada],
      reply_users_count: 2,
      latest_reply: r2.ts,
    };
    // The thread stays readable, its parent a tombstone; the history shows the tombstone.
    const thread = await ada().conversations.replies({ channel: w.general, ts: parent.ts! });
    expect(thread.messages![0]).toMatchObject(tombstone);
    expect(thread.messages![0]!.blocks).toBeUndefined();
    expect(thread.messages!.slice(1).map((m) => [m.text, m.parent_user_id])).toEqual([
      ['on it', 'USLACKBOT'],
      ['thanks', 'USLACKBOT'],
    ]);
    const shown = (await ada().conversations.history({ channel: w.general })).messages!;
    expect(shown.find((m) => m.ts === parent.ts)).toMatchObject(tombstone);
    expect(shown.map((m) => m.text)).not.toContain('outage?');
    // The tombstone is Slackbot's: its author can neither edit nor delete it again.
    await expect(
      ada().chat.update({ channel: w.general, ts: parent.ts!, text: 'back' }),
    ).rejects.toMatchObject({ data: { error: 'cant_update_message' } });
    await expect(ada().chat.delete({ channel: w.general, ts: parent.ts! })).rejects.toMatchObject({
      data: { error: 'cant_delete_message' },
    });
    // A message without replies is simply gone.
    await ada().chat.delete({ channel: w.general, ts: lonely.ts! });
    await expect(
      ada().conversations.replies({ channel: w.general, ts: lonely.ts! }),
    ).rejects.toMatchObject({ data: { error: 'thread_not_found' } });
    // The tombstone goes with its thread's last reply.
    await bob().chat.delete({ channel: w.general, ts: r1.ts! });
    expect(
      (await ada().conversations.replies({ channel: w.general, ts: parent.ts! })).messages![0],
    ).toMatchObject({ ...tombstone, reply_count: 1, reply_users: [w.ada], reply_users_count: 1 });
    await ada().chat.delete({ channel: w.general, ts: r2.ts! });
    await expect(
      ada().conversations.replies({ channel: w.general, ts: parent.ts! }),
    ).rejects.toMatchObject({ data: { error: 'thread_not_found' } });
    const after = (await ada().conversations.history({ channel: w.general })).messages!;
    expect(after.map((m) => m.ts)).not.toContain(parent.ts);
    // Bolt verified each: the tombstone as message_changed, then four deletions.
    const subtypes = await until('the deletions at Bolt', () => {
      const got = seen.flatMap((e) => (e.subtype === undefined ? [] : [e.subtype]));
      return got.length >= 5 ? got : undefined;
    });
    expect(subtypes.sort()).toEqual([
      'message_changed',
      'message_deleted',
      'message_deleted',
      'message_deleted',
      'message_deleted',
    ]);
    const events = (await settled())
      .filter((d) => d.fields.eventType === 'message')
      .map((d) => (JSON.parse(String(d.fields.body)) as { event: Record<string, any> }).event);
    const changed = events.find(
      (e) => e.subtype === 'message_changed' && e.message?.subtype === 'tombstone',
    );
    expect(changed).toMatchObject({
      channel: w.general,
      hidden: true,
      message: tombstone,
      previous_message: { text: 'outage?', user: w.ada, ts: parent.ts },
    });
    const gone = events.find(
      (e) => e.subtype === 'message_deleted' && e.previous_message?.subtype === 'tombstone',
    );
    expect(gone).toMatchObject({
      deleted_ts: parent.ts,
      // As Slack sends it: the thread now empty, its latest_reply all zeros.
      previous_message: {
        ...tombstone,
        reply_count: 0,
        reply_users: [],
        reply_users_count: 0,
        latest_reply: '0000000000.000000',
      },
    });
  });

  it('chat.postEphemeral shows one member a message outside the history and sends no event', async () => {
    await settled();
    const before = (await deliveries()).length;
    const shown = await bot().chat.postEphemeral({
      channel: w.general,
      user: w.bob,
      text: 'only you can see this',
    });
    expect(shown).toMatchObject({ ok: true, message_ts: expect.stringMatching(/^\d+\.\d{6}$/) });
    await expect(
      bot().chat.postEphemeral({ channel: w.general, user: w.carol, text: 'not a member' }),
    ).rejects.toMatchObject({ data: { error: 'user_not_in_channel' } });
    const history = await ada().conversations.history({ channel: w.general });
    expect(history.messages!.map((m) => m.text)).not.toContain('only you can see this');
    await host.idle();
    expect((await deliveries()).length).toBe(before);
  });

  it('chat.scheduleMessage posts when the world clock reaches post_at, and Bolt gets its events', async () => {
    const now = Math.floor(world.clock.now() / 1000);
    await expect(
      ada().chat.scheduleMessage({ channel: w.general, text: 'late', post_at: now - 10 }),
    ).rejects.toMatchObject({ data: { error: 'time_in_past' } });
    await expect(
      ada().chat.scheduleMessage({
        channel: w.general,
        text: 'x'.repeat(40_001),
        post_at: now + 60,
      }),
    ).rejects.toMatchObject({ data: { error: 'msg_too_long' } });
    const due = await ada().chat.scheduleMessage({
      channel: w.general,
      text: `<@${botUser}> standup starts`,
      post_at: now + 3600,
    });
    expect(due).toMatchObject({
      ok: true,
      channel: w.general,
      post_at: now + 3600,
      scheduled_message_id: expect.stringMatching(/^Q[0-9A-Z]{10}$/),
    });
    const dropped = await ada().chat.scheduleMessage({
      channel: w.general,
      text: 'never mind',
      post_at: now + 1800,
    });
    const listed = await ada().chat.scheduledMessages.list({ channel: w.general });
    expect(listed.scheduled_messages!.map((s) => s.id)).toEqual([
      dropped.scheduled_message_id,
      due.scheduled_message_id,
    ]);
    // oldest / latest bound post_at, both ends included; a bound that is no time is refused
    const window = async (oldest?: number, latest?: number) =>
      (
        await ada().chat.scheduledMessages.list({
          ...(oldest === undefined ? {} : { oldest: String(oldest) }),
          ...(latest === undefined ? {} : { latest: String(latest) }),
        })
      ).scheduled_messages!.map((s) => s.id);
    expect(await window(now + 1800)).toEqual([
      dropped.scheduled_message_id,
      due.scheduled_message_id,
    ]);
    expect(await window(now + 1801)).toEqual([due.scheduled_message_id]);
    expect(await window(undefined, now + 1800)).toEqual([dropped.scheduled_message_id]);
    expect(await window(now + 1801, now + 3599)).toEqual([]);
    await expect(ada().chat.scheduledMessages.list({ oldest: 'yesterday' })).rejects.toMatchObject({
      data: { error: 'invalid_ts_oldest' },
    });
    await ada().chat.deleteScheduledMessage({
      channel: w.general,
      scheduled_message_id: dropped.scheduled_message_id!,
    });
    await expect(
      ada().chat.deleteScheduledMessage({
        channel: w.general,
        scheduled_message_id: dropped.scheduled_message_id!,
      }),
    ).rejects.toMatchObject({ data: { error: 'invalid_scheduled_message_id' } });
    seen.length = 0;
    await advance(3599_000);
    expect(
      (await ada().conversations.history({ channel: w.general, limit: 1 })).messages![0]!.text,
    ).toBe('release v1.1?'); // the thread's replies are not the channel's history
    await advance(1_000);
    const latest = (await ada().conversations.history({ channel: w.general, limit: 1 }))
      .messages![0]!;
    expect(latest).toMatchObject({ text: `<@${botUser}> standup starts`, user: w.ada });
    expect(Number(latest.ts)).toBe(now + 3600);
    await until('message and app_mention at Bolt', () => (seen.length >= 2 ? seen : undefined));
    expect(seen.map((e) => e.type).sort()).toEqual(['app_mention', 'message']);
    expect(seen.every((e) => e.subtype === undefined)).toBe(true);
    expect(seen.every((e) => e.text === `<@${botUser}> standup starts`)).toBe(true);
    expect((await ada().chat.scheduledMessages.list({})).scheduled_messages).toEqual([]);
    // Moving the clock again posts nothing twice.
    const head = await twin.head();
    await advance(3600_000);
    expect(await twin.head()).toBe(head);
  });

  it('users.list pages, users.lookupByEmail finds a person, conversations.members and conversations.open', async () => {
    const pages: string[][] = [];
    for await (const page of ada().paginate('users.list', { limit: 2 }))
      pages.push(((page as { members?: { name: string }[] }).members ?? []).map((m) => m.name));
    expect(pages.flat().sort()).toEqual(['ada', 'bob', 'carol', 'deployer']);
    expect(pages.map((p) => p.length)).toEqual([2, 2]);
    const found = await bot().users.lookupByEmail({ email: 'bob@example.com' });
    expect(found.user).toMatchObject({ id: w.bob, profile: { email: 'bob@example.com' } });
    await expect(bot().users.lookupByEmail({ email: 'nobody@example.com' })).rejects.toMatchObject({
      data: { error: 'users_not_found' },
    });
    const members = await bot().conversations.members({ channel: w.general });
    expect([...members.members!].sort()).toEqual([w.ada, w.bob].sort());
    await bot().conversations.join({ channel: w.general });
    expect((await bot().conversations.members({ channel: w.general })).members).toContain(botUser);
    const opened = await bot().conversations.open({ users: w.carol });
    expect(opened).toMatchObject({ ok: true, channel: { id: expect.stringMatching(/^D/) } });
    expect(opened.already_open).toBeUndefined();
    const again = await client(userToken(w.carol)).conversations.open({
      users: botUser,
      return_im: true,
    });
    expect(again).toMatchObject({
      no_op: true,
      already_open: true,
      channel: { id: opened.channel!.id, is_im: true, user: botUser },
    });
    // A DM with the bot: people post there, the app gets message.im; nobody else sees it.
    seen.length = 0;
    const carol = client(userToken(w.carol));
    const dm = opened.channel!.id!;
    await carol.chat.postMessage({ channel: dm, text: 'hi bot' });
    await expect(ada().chat.postMessage({ channel: dm, text: 'me too' })).rejects.toMatchObject({
      data: { error: 'channel_not_found' },
    });
    await expect(ada().conversations.history({ channel: dm })).rejects.toMatchObject({
      data: { error: 'channel_not_found' },
    });
    // nor may a third person react in it, add or remove, or whisper there
    const inDm = (await bot().conversations.history({ channel: dm })).messages![0]!.ts!;
    for (const call of [
      () => ada().reactions.add({ channel: dm, timestamp: inDm, name: 'eyes' }),
      () => ada().reactions.remove({ channel: dm, timestamp: inDm, name: 'eyes' }),
      () => ada().chat.postEphemeral({ channel: dm, user: w.carol, text: 'psst' }),
      () =>
        ada().chat.scheduleMessage({
          channel: dm,
          text: 'later',
          post_at: Math.floor(world.clock.now() / 1000) + 60,
        }),
    ])
      await expect(call()).rejects.toMatchObject({ data: { error: 'channel_not_found' } });
    expect((await bot().conversations.history({ channel: dm })).messages![0]).toMatchObject({
      text: 'hi bot',
      user: w.carol,
    });
    expect((await carol.conversations.list({ types: 'im' })).channels).toEqual([
      expect.objectContaining({ id: dm, is_im: true, user: botUser }),
    ]);
    expect((await carol.conversations.list({})).channels!.map((c) => c.id)).not.toContain(dm);
    await expect(bot().conversations.join({ channel: dm })).rejects.toMatchObject({
      data: { error: 'method_not_supported_for_channel_type' },
    });
    await until('message.im at Bolt', () => (seen.length >= 1 ? seen : undefined));
    expect(seen).toEqual([{ type: 'message.im', text: 'hi bot' }]);
    await expect(bot().conversations.open({ users: `${w.ada},${w.bob}` })).rejects.toMatchObject({
      data: { error: 'too_many_users' },
    });
    await expect(bot().conversations.open({ users: 'U0000000000' })).rejects.toMatchObject({
      data: { error: 'user_not_found' },
    });
  });

  it('users.profile.set sends user_change and conversations.leave sends member_left_channel to Bolt', async () => {
    seen.length = 0;
    const bob = client(userToken(w.bob));
    const set = await bob.users.profile.set({ profile: { real_name: 'Robert Kahn' } });
    expect(set.profile).toMatchObject({ real_name: 'Robert Kahn', email: 'bob@example.com' });
    expect((await bot().users.profile.get({ user: w.bob })).profile).toMatchObject({
      real_name: 'Robert Kahn',
    });
    await expect(
      bob.users.profile.set({ user: w.ada, profile: { real_name: 'Not Ada' } }),
    ).rejects.toMatchObject({ data: { error: 'cannot_update_admin_user' } });
    await expect(bob.conversations.leave({ channel: w.general })).rejects.toMatchObject({
      data: { error: 'cant_leave_general' },
    });
    const ops = (await ada().conversations.create({ name: 'ops' })).channel!.id!;
    await bob.conversations.join({ channel: ops });
    await bob.conversations.leave({ channel: ops });
    expect(await bob.conversations.leave({ channel: ops })).toMatchObject({
      ok: true,
      not_in_channel: true,
    });
    expect((await bot().conversations.members({ channel: ops })).members).toEqual([w.ada]);
    const got = await until('user_change and member_left_channel at Bolt', () =>
      seen.length >= 2 ? seen : undefined,
    );
    expect(got).toEqual([
      { type: 'user_change', text: 'Robert Kahn' },
      { type: 'member_left_channel', text: `${w.bob} left ${ops}` },
    ]);
  });

  it('views.update replaces a published view by id or external_id, refusing a stale hash', async () => {
    const home = (text: string, external_id?: string) => ({
      type: 'home' as const,
      ...(external_id === undefined ? {} : { external_id }),
      blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }],
    });
    const published = await bot().views.publish({
      user_id: w.ada,
      view: home('hello', 'ada-home'),
    });
    const first = published.view!;
    const updated = await bot().views.update({
      view_id: first.id!,
      hash: first.hash!,
      view: home('hello again'),
    });
    expect(updated.view).toMatchObject({ id: first.id });
    expect(updated.view!.hash).not.toBe(first.hash);
    await expect(
      bot().views.update({ view_id: first.id!, hash: first.hash!, view: home('stale') }),
    ).rejects.toMatchObject({ data: { error: 'hash_conflict' } });
    const byExternal = await bot().views.publish({
      user_id: w.bob,
      view: home('bob', 'bob-home'),
    });
    const viaExternal = await bot().views.update({
      external_id: 'bob-home',
      view: home('bob, updated', 'bob-home'),
    });
    expect(viaExternal.view).toMatchObject({ id: byExternal.view!.id });
    await expect(
      bot().views.update({ external_id: 'nobody-home', view: home('x') }),
    ).rejects.toMatchObject({ data: { error: 'not_found' } });
  });

  it('1,000 read calls append nothing; every delivery was verified by Bolt; the log replays and holds no token or secret', async () => {
    await settled();
    const head = await twin.head();
    const reads: [string, Record<string, string>][] = [
      ['conversations.history', { channel: w.general, limit: '2' }],
      ['conversations.info', { channel: w.general }],
      ['conversations.list', {}],
      ['conversations.members', { channel: w.general }],
      ['users.list', { limit: '2' }],
      ['users.info', { user: w.bob }],
      ['users.profile.get', { user: w.ada }],
      ['conversations.replies', { channel: w.general, ts: threadTs }],
      ['chat.getPermalink', { channel: w.general, message_ts: threadTs }],
      ['users.lookupByEmail', { email: 'ada@example.com' }],
      ['auth.test', {}],
      ['team.info', {}],
      ['chat.scheduledMessages.list', {}],
    ];
    let answered = 0;
    const one = async (i: number) => {
      const [method, args] = reads[i % reads.length]!;
      const r = await fetch(`${api}${method}`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${botToken(appId)}`,
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: new URLSearchParams(args).toString(),
      });
      expect(r.status).toBe(200);
      expect(await r.json(), method).toMatchObject({ ok: true });
      answered++;
    };
    for (let batch = 0; batch < 100; batch++)
      await Promise.all(Array.from({ length: 10 }, (_, k) => one(batch * 10 + k)));
    expect(answered).toBe(1000);
    expect(await twin.head()).toBe(head);
    for (const d of await deliveries())
      expect(d.fields, String(d.fields.eventType)).toMatchObject({ state: 'succeeded' });
    const lines = await collect(twin.exportLines());
    const text = lines.join('\n');
    for (const s of [signingSecret, botToken(appId), userToken(w.ada)])
      expect(text).not.toContain(s);
    expect((await replayLines(lines)).hash).toBe(await twin.hash());
    expect(calls).toBeGreaterThan(0);
  });
});
