// The Slack surface as the unmodified @slack/web-api sees it (only slackApiUrl set, its default
// retry policy left on) and a Bolt app started against it, on a real host on loopback, on SQLite
// and on PostgreSQL: the Request URL set through apps.manifest.update is verified first, then
// message, app_mention and reaction_added caused by WebClient calls reach Bolt, which verifies
// each signature.
import { App, HTTPReceiver } from '@slack/bolt';
import { WebClient } from '@slack/web-api';
import type { AddressInfo, Server } from 'node:net';
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
import { secrets } from '../packs/support.js';

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

describe.each(homes)('@slack/web-api and Bolt against the Slack surface ($name)', (home) => {
  let world: World;
  let host: SurfaceHost;
  let listening: Listening;
  let twin: Twin;
  let cleanup: () => void;
  let api: string;
  let calls = 0;
  const signingSecret = secrets.slack();
  let receiver: HTTPReceiver;
  let boltUrl: string;
  const seen: string[] = [];
  let w: { team: string; ada: string; general: string; app: slack.SlackApp };

  const countingFetch: typeof fetch = (input, init) => {
    calls++;
    return fetch(input, init);
  };
  /** Every delivery record, once none is still queued or being sent. */
  const settled = () =>
    until('deliveries to settle', async () => {
      const all = await twin.list('event_delivery');
      return all.every((d) => d.fields.state === 'succeeded' || d.fields.state === 'failed')
        ? all
        : undefined;
    });
  const client = (token: string) =>
    new WebClient(token, { slackApiUrl: api, fetch: countingFetch });

  beforeAll(async () => {
    const fresh = home.fresh();
    cleanup = fresh.cleanup;
    world = openWorldAt(fresh.spec, { clock: new VirtualClock(Date.now()), seed: 'slack-surface' });
    host = createHost({ world });
    twin = host.packTwin(slack.pack);
    host.serve(slackSurface({ twin }));
    listening = await listen(host);
    api = `${listening.url}/api/`;
    const team = await slack.createTeam(twin, { name: 'Twinworld' });
    const ada = await slack.createUser(twin, {
      team: team.id,
      name: 'ada',
      real_name: 'Ada Lovelace',
    });
    const general = await slack.createChannel(twin, {
      team: team.id,
      name: 'general',
      creator: ada.id,
    });
    const { app } = await slack.createApp(twin, {
      team: team.id,
      name: 'Deployer',
      request_url: 'https://not-yet.example.com/slack/events',
      signing_secret: signingSecret,
      bot_events: ['message.channels', 'app_mention', 'reaction_added'],
    });
    w = { team: team.id, ada: ada.id, general: general.id, app };
    receiver = new HTTPReceiver({
      signingSecret,
      endpoints: '/slack/events',
      processBeforeResponse: true,
    });
    const bolt = new App({
      receiver,
      token: botToken(app.id),
      clientOptions: { slackApiUrl: api },
    });
    for (const type of ['message', 'app_mention', 'reaction_added'] as const)
      bolt.event(type, async ({ event }) => void seen.push(event.type));
    const server = (await receiver.start(0)) as unknown as Server;
    boltUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/slack/events`;
  });
  afterAll(async () => {
    await receiver?.stop();
    await listening?.close();
    await host?.close();
    await world?.close();
    cleanup?.();
  });

  it('auth.test answers the bot and the person; a bad token is ok:false invalid_auth in one request', async () => {
    await expect(client(botToken(w.app.id)).auth.test()).resolves.toMatchObject({
      ok: true,
      team_id: w.team,
      user_id: w.app.bot_user_id,
      bot_id: w.app.bot_id,
      url: `${listening.url}/`,
    });
    await expect(client(userToken(w.ada)).auth.test()).resolves.toMatchObject({
      ok: true,
      user: 'ada',
    });
    const before = calls;
    await expect(client('xoxb-A0000000000-nope').auth.test()).rejects.toMatchObject({
      code: 'slack_webapi_platform_error',
      data: { ok: false, error: 'invalid_auth' },
    });
    expect(calls - before).toBe(1);
  });

  it('the Request URL set through apps.manifest.update gets url_verification first, then Bolt gets message, app_mention and reaction_added', async () => {
    const bot = client(botToken(w.app.id));
    await bot.apps.manifest.update({
      app_id: w.app.id,
      manifest: { settings: { event_subscriptions: { request_url: boltUrl } } } as never,
    });
    const verification = await until('url_verification to succeed', async () => {
      const d = (await twin.list('event_delivery')).find(
        (r) => r.fields.eventType === 'url_verification',
      );
      return d?.fields.state === 'succeeded' ? d : undefined;
    });
    expect(verification.fields.url).toBe(boltUrl);
    const ada = client(userToken(w.ada));
    const posted = await ada.chat.postMessage({
      channel: w.general,
      text: `<@${w.app.bot_user_id}> deploy v2, please`,
    });
    expect(posted).toMatchObject({ ok: true, channel: w.general });
    await ada.reactions.add({ channel: w.general, timestamp: posted.ts!, name: 'tada' });
    await until('three events at Bolt', () => (seen.length >= 3 ? seen : undefined));
    expect([...seen].sort()).toEqual(['app_mention', 'message', 'reaction_added']);
    const deliveries = await settled();
    expect(deliveries.map((d) => d.fields.eventType).sort()).toEqual([
      'app_mention',
      'message',
      'reaction_added',
      'url_verification',
    ]);
    for (const d of deliveries)
      expect(d.fields, String(d.fields.eventType)).toMatchObject({
        state: 'succeeded',
        attempts: 1,
      });
    // A repeated reaction is Slack's already_reacted, HTTP 200, one request, nothing appended.
    const head = await twin.head();
    const before = calls;
    await expect(
      ada.reactions.add({ channel: w.general, timestamp: posted.ts!, name: 'tada' }),
    ).rejects.toMatchObject({
      data: { ok: false, error: 'already_reacted' },
    });
    expect(calls - before).toBe(1);
    expect(await twin.head()).toBe(head);
  });

  it('an unknown method is one request answered 200 ok:false unknown_method, not a retry storm', async () => {
    const before = calls;
    const started = Date.now();
    await expect(
      client(botToken(w.app.id)).apiCall('chat.teleport', { channel: w.general }),
    ).rejects.toMatchObject({
      data: { ok: false, error: 'unknown_method' },
    });
    expect(calls - before).toBe(1);
    expect(Date.now() - started).toBeLessThan(5_000);
    const raw = await fetch(`${api}chat.teleport`, {
      method: 'POST',
      headers: { authorization: `Bearer ${botToken(w.app.id)}` },
    });
    expect(raw.status).toBe(200);
    // A JSON body that does not parse: 200 ok:false invalid_json, not a fault of the host.
    const broken = await fetch(`${api}chat.postMessage`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${botToken(w.app.id)}`,
        'content-type': 'application/json; charset=utf-8',
      },
      body: '{"channel": ',
    });
    expect(broken.status).toBe(200);
    expect(await broken.json()).toMatchObject({ ok: false, error: 'invalid_json' });
    // A method of the table whose argument names nothing: still 200.
    await expect(
      client(botToken(w.app.id)).conversations.info({ channel: 'C0000000000' }),
    ).rejects.toMatchObject({
      data: { error: 'channel_not_found' },
    });
  });

  it('conversations.history pages with response_metadata.next_cursor, newest first, and reads append nothing', async () => {
    const ada = client(userToken(w.ada));
    const channel = await ada.conversations.create({ name: 'paging' });
    const id = channel.channel!.id!;
    for (let i = 1; i <= 5; i++) await ada.chat.postMessage({ channel: id, text: `message ${i}` });
    await settled();
    const head = await twin.head();
    const before = calls;
    const pages: string[][] = [];
    for await (const page of ada.paginate('conversations.history', { channel: id, limit: 2 }))
      pages.push(
        ((page as unknown as { messages?: { text: string }[] }).messages ?? []).map((m) => m.text),
      );
    expect(pages).toEqual([['message 5', 'message 4'], ['message 3', 'message 2'], ['message 1']]);
    expect(calls - before).toBe(3);
    for (let i = 0; i < 100; i++) await ada.conversations.info({ channel: id });
    expect(await twin.head()).toBe(head);
    await expect(
      ada.conversations.history({ channel: id, cursor: 'bm9wZQ==' }),
    ).rejects.toMatchObject({
      data: { error: 'invalid_cursor' },
    });
    // oldest / latest bound the page (exclusive unless inclusive), and replies stay in their thread
    const all = (await ada.conversations.history({ channel: id })).messages!;
    const [m5, m4, m3, m2] = all.map((m) => m.ts!);
    const texts = async (args: Record<string, unknown>) =>
      (await ada.conversations.history({ channel: id, ...args })).messages!.map((m) => m.text);
    expect(await texts({ oldest: m3, latest: m5 })).toEqual(['message 4']);
    expect(await texts({ oldest: m3, latest: m5, inclusive: true })).toEqual([
      'message 5',
      'message 4',
      'message 3',
    ]);
    expect(await texts({ latest: m2 })).toEqual(['message 1']);
    await ada.chat.postMessage({ channel: id, text: 'a reply', thread_ts: m4 });
    expect(await texts({ oldest: m4 })).toEqual(['message 5']);
    await expect(
      ada.conversations.history({ channel: id, oldest: 'yesterday' }),
    ).rejects.toMatchObject({ data: { error: 'invalid_ts_oldest' } });
  });

  it('the exported log replays to the live hash and holds no token or signing secret', async () => {
    const lines = await collect(twin.exportLines());
    const text = lines.join('\n');
    for (const s of [signingSecret, botToken(w.app.id), userToken(w.ada)])
      expect(text).not.toContain(s);
    expect((await replayLines(lines)).hash).toBe(await twin.hash());
  });
});
