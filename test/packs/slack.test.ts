// Slack pack: one message write renders `message` and, when the app is mentioned, `app_mention`,
// inside event_callback envelopes; Slack's three retries carry X-Slack-Retry-Num and
// X-Slack-Retry-Reason; every packet, retries included, passes Bolt's verifySlackRequest.
import { afterAll, describe, expect, it } from 'vitest';
import { collect } from '../support/backends.js';
import { openWorld, registerPack, VirtualClock } from '../../src/index.js';
import * as slack from '../../packs/slack/index.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { header, slackVerifier } from './verifiers.js';
import { secrets, virtualWorld } from './support.js';

type Envelope = Record<string, any>;

async function workspace(
  twin: ReturnType<typeof registerPack>,
  requestUrl = 'https://app.example.com/slack/events',
  botEvents?: string[],
  signingSecret?: string,
) {
  const team = await slack.createTeam(twin, { name: 'Twinworld' });
  const ada = await slack.createUser(twin, { team: team.id, name: 'ada' });
  const general = await slack.createChannel(twin, {
    team: team.id,
    name: 'general',
    creator: ada.id,
  });
  const installed = await slack.createApp(twin, {
    team: team.id,
    name: 'Helper',
    request_url: requestUrl,
    ...(botEvents ? { bot_events: botEvents } : {}),
    ...(signingSecret ? { signing_secret: signingSecret } : {}),
  });
  return { team, ada, general, ...installed };
}

const receivers: Receiver[] = [];
afterAll(async () => {
  for (const r of receivers) await r.close();
});

describe('slack events', () => {
  it('a plain message is one `message` event; a mention of the bot adds `app_mention` from the same write', async () => {
    const world = openWorld({
      root: ':memory:',
      clock: new VirtualClock('2026-06-01T09:00:00Z'),
      seed: 'slack',
    });
    const twin = registerPack(world, slack.pack);
    const w = await workspace(twin);
    const rendered = async (post: () => Promise<unknown>) => {
      const head = await twin.head();
      await post();
      // the post and its deliveries are one commit: consecutive entries after the head
      return (await twin.entries({ after: head })).map((e) =>
        e.operation === 'event_delivery.create' ? String(e.fields!.eventType) : e.operation,
      );
    };
    expect(
      await rendered(() =>
        slack.postMessage(twin, { channel: w.general.id, user: w.ada.id, text: 'hello everyone' }),
      ),
    ).toEqual(['message.post', 'message']);
    let mentionMsg!: slack.SlackMessage;
    expect(
      await rendered(
        async () =>
          (mentionMsg = await slack.postMessage(twin, {
            channel: w.general.id,
            user: w.ada.id,
            text: `${slack.mention(w.app.bot_user_id)} summarise this`,
          })),
      ),
    ).toEqual(['message.post', 'message', 'app_mention']);
    const deliveries = (await twin.list('event_delivery')).sort((a, b) => a.version - b.version);
    const mention = JSON.parse(String(deliveries[2]!.fields.body)) as Envelope;
    expect(mention).toMatchObject({
      token: w.app.verification_token,
      team_id: w.team.id,
      api_app_id: w.app.id,
      type: 'event_callback',
      event_time: Date.parse('2026-06-01T09:00:00Z') / 1000,
      is_ext_shared_channel: false,
      authorizations: [
        {
          enterprise_id: null,
          team_id: w.team.id,
          user_id: w.app.bot_user_id,
          is_bot: true,
          is_enterprise_install: false,
        },
      ],
      event: {
        type: 'app_mention',
        user: w.ada.id,
        text: mentionMsg.text,
        ts: mentionMsg.ts,
        channel: w.general.id,
        event_ts: mentionMsg.ts,
      },
    });
    expect(mention.event_id).toMatch(/^Ev[0-9A-Za-z]+$/);
    expect(JSON.parse(Buffer.from(mention.event_context.slice(2), 'base64url').toString())).toEqual(
      { et: 'app_mention', tid: w.team.id, aid: w.app.id, cid: w.general.id },
    );
    const message = JSON.parse(String(deliveries[1]!.fields.body)) as Envelope;
    expect(message.event).toMatchObject({
      type: 'message',
      channel_type: 'channel',
      ts: mentionMsg.ts,
    });
    expect(message.event_id).not.toBe(mention.event_id);
    // two posts in one millisecond still get distinct ts
    expect(new Set((await twin.list('message')).map((m) => m.fields.ts)).size).toBe(2);
  });

  it('a subscription takes only its bot events; a disabled one nothing; mentions of other users are not app_mentions', async () => {
    const world = openWorld({ root: ':memory:', clock: new VirtualClock(), seed: 'slack-2' });
    const twin = registerPack(world, slack.pack);
    const w = await workspace(twin, undefined, ['app_mention']);
    await slack.postMessage(twin, {
      channel: w.general.id,
      user: w.ada.id,
      text: `${slack.mention(w.ada.id)} hi`,
    });
    expect(await twin.list('event_delivery')).toHaveLength(0);
    await slack.postMessage(twin, {
      channel: w.general.id,
      user: w.ada.id,
      text: `${slack.mention(w.app.bot_user_id)} hi`,
    });
    expect((await twin.list('event_delivery')).map((d) => d.fields.eventType)).toEqual([
      'app_mention',
    ]);
    await slack.updateEventSubscription(twin, w.app.id, { enabled: false });
    await slack.postMessage(twin, {
      channel: w.general.id,
      user: w.ada.id,
      text: `${slack.mention(w.app.bot_user_id)} again`,
    });
    expect(await twin.list('event_delivery')).toHaveLength(1);
  });

  it('refuses what Slack refuses, with Slack error codes', async () => {
    const world = openWorld({ root: ':memory:', clock: new VirtualClock(), seed: 'slack-3' });
    const twin = registerPack(world, slack.pack);
    const w = await workspace(twin);
    await expect(
      slack.postMessage(twin, { channel: 'C0000000000', user: w.ada.id, text: 'x' }),
    ).rejects.toThrow(expect.objectContaining({ vendorCode: 'channel_not_found' }));
    await expect(
      slack.createApp(twin, {
        team: w.team.id,
        name: 'Second',
        request_url: 'https://x.example.com',
      }),
    ).rejects.toThrow(expect.objectContaining({ kind: 'conflict' }));
    await expect(
      slack.createApp(twin, {
        team: w.team.id,
        name: 'x',
        request_url: 'https://x.example.com',
        bot_events: ['pin_added'],
      }),
    ).rejects.toThrow(/pin_added/);
    expect(w.signingSecret).toMatch(/^[0-9a-f]{32}$/);
    expect((await collect(twin.exportLines())).join('\n')).not.toContain(w.signingSecret);
  });

  it('a new Request URL gets url_verification (to it, and only when it changes); other changes send nothing', async () => {
    const world = openWorld({
      root: ':memory:',
      clock: new VirtualClock('2026-06-01T09:00:00Z'),
      seed: 'slack-url',
    });
    const twin = registerPack(world, slack.pack);
    const w = await workspace(twin, 'https://old.example.com/slack/events', ['message.channels']);
    await slack.updateEventSubscription(twin, w.app.id, {
      bot_events: ['message.channels', 'app_mention'],
    });
    expect(await twin.list('event_delivery')).toHaveLength(0);
    await slack.updateEventSubscription(twin, w.app.id, {
      request_url: 'https://new.example.com/slack/events',
    });
    await slack.updateEventSubscription(twin, w.app.id, {
      request_url: 'https://new.example.com/slack/events',
    });
    const [challenge] = await twin.list('event_delivery');
    expect(await twin.list('event_delivery')).toHaveLength(1);
    expect(challenge!.fields).toMatchObject({
      eventType: 'url_verification',
      url: 'https://new.example.com/slack/events',
    });
    const body = JSON.parse(String(challenge!.fields.body)) as Envelope;
    expect(Object.keys(body)).toEqual(['token', 'challenge', 'type']);
    expect(body).toMatchObject({
      token: w.app.verification_token,
      type: 'url_verification',
      challenge: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
    });
    // A later change of bot events keeps the subscription able to take the next verification.
    await slack.updateEventSubscription(twin, w.app.id, { bot_events: ['app_mention'] });
    expect((await twin.get('event_subscription', w.app.id))!.fields.event_filter).toEqual([
      'app_mention',
      'url_verification',
    ]);
  });

  it('reactions, joins, App Home, buttons and slash commands: refused as Slack refuses them', async () => {
    const world = openWorld({
      root: ':memory:',
      clock: new VirtualClock('2026-06-01T09:00:00Z'),
      seed: 'slack-more',
    });
    const twin = registerPack(world, slack.pack);
    const w = await workspace(twin);
    const grace = await slack.createUser(twin, { team: w.team.id, name: 'grace' });
    const post = await slack.postMessage(twin, {
      channel: w.general.id,
      user: w.ada.id,
      text: 'hi',
    });
    await slack.addReaction(twin, {
      channel: w.general.id,
      ts: post.ts,
      user: grace.id,
      name: 'wave',
    });
    await expect(
      slack.addReaction(twin, { channel: w.general.id, ts: post.ts, user: grace.id, name: 'wave' }),
    ).rejects.toThrow(expect.objectContaining({ vendorCode: 'already_reacted' }));
    await expect(
      slack.addReaction(twin, {
        channel: w.general.id,
        ts: '1.000000',
        user: grace.id,
        name: 'wave',
      }),
    ).rejects.toThrow(expect.objectContaining({ vendorCode: 'message_not_found' }));
    await expect(
      slack.addReaction(twin, {
        channel: w.general.id,
        ts: post.ts,
        user: grace.id,
        name: 'Not An Emoji',
      }),
    ).rejects.toThrow(expect.objectContaining({ path: 'name' }));
    await expect(
      slack.joinChannel(twin, { channel: w.general.id, user: w.ada.id }),
    ).rejects.toThrow(expect.objectContaining({ vendorCode: 'already_in_channel' }));
    await slack.joinChannel(twin, { channel: w.general.id, user: grace.id });
    await expect(
      slack.joinChannel(twin, { channel: w.general.id, user: grace.id }),
    ).rejects.toThrow(expect.objectContaining({ kind: 'conflict' }));
    const home = await slack.openAppHome(twin, { app: w.app.id, user: grace.id });
    expect(
      (await slack.openAppHome(twin, { app: w.app.id, user: grace.id, tab: 'messages' })).channel,
    ).toBe(home.channel); // one DM per user
    expect(home.channel).toMatch(/^D[0-9A-Z]{10}$/);
    await expect(
      slack.openAppHome(twin, { app: w.app.id, user: grace.id, tab: 'about' as never }),
    ).rejects.toThrow(expect.objectContaining({ path: 'tab' }));
    const prompt = await slack.postMessage(twin, {
      channel: w.general.id,
      user: w.app.bot_user_id,
      text: 'Deploy?',
      blocks: slack.APPROVE_BLOCKS,
    });
    expect(prompt).toMatchObject({ bot_id: w.app.bot_id, app_id: w.app.id });
    // Slack's client sets client_msg_id on what people type; an app's bot posts carry none.
    expect(prompt).not.toHaveProperty('client_msg_id');
    const typed = await slack.postMessage(twin, {
      channel: w.general.id,
      user: grace.id,
      text: 'on it',
    });
    expect(typed.client_msg_id).toMatch(/^[0-9a-f-]{36}$/);
    await expect(
      slack.clickButton(twin, {
        channel: w.general.id,
        ts: prompt.ts,
        user: grace.id,
        action_id: 'approve',
      }),
    ).rejects.toThrow(expect.objectContaining({ vendorCode: 'interactivity_disabled' }));
    await slack.setInteractivityUrl(twin, w.app.id, {
      request_url: 'https://app.example.com/slack/actions',
    });
    await expect(
      slack.clickButton(twin, {
        channel: w.general.id,
        ts: prompt.ts,
        user: grace.id,
        action_id: 'reject',
      }),
    ).rejects.toThrow(expect.objectContaining({ vendorCode: 'action_not_found' }));
    await expect(
      slack.postMessage(twin, {
        channel: w.general.id,
        user: w.ada.id,
        text: 'x',
        blocks: [{ type: 'actions', elements: [{ type: 'button' }] }],
      }),
    ).rejects.toThrow(expect.objectContaining({ vendorCode: 'invalid_blocks' }));
    await expect(
      slack.createSlashCommand(twin, {
        team: w.team.id,
        command: 'deploy',
        url: 'https://x.example.com',
      }),
    ).rejects.toThrow(expect.objectContaining({ vendorCode: 'invalid_command' }));
    await slack.createSlashCommand(twin, {
      team: w.team.id,
      command: '/deploy',
      url: 'https://app.example.com/slack/commands',
    });
    await expect(
      slack.createSlashCommand(twin, {
        team: w.team.id,
        command: '/deploy',
        url: 'https://x.example.com',
      }),
    ).rejects.toThrow(expect.objectContaining({ vendorCode: 'command_exists' }));
    await expect(
      slack.runSlashCommand(twin, {
        team: w.team.id,
        command: '/ship',
        user: w.ada.id,
        channel: w.general.id,
      }),
    ).rejects.toThrow(expect.objectContaining({ vendorCode: 'command_not_found' }));
    await slack.clickButton(twin, {
      channel: w.general.id,
      ts: prompt.ts,
      user: grace.id,
      action_id: 'approve',
    });
    await slack.runSlashCommand(twin, {
      team: w.team.id,
      command: '/deploy',
      text: 'v2 now',
      user: w.ada.id,
      channel: w.general.id,
    });
    const byType = async (t: string) =>
      (await twin.list('event_delivery')).filter((d) => d.fields.eventType === t);
    expect((await byType('block_actions')).map((d) => d.fields.url)).toEqual([
      'https://app.example.com/slack/actions',
    ]);
    const form = new URLSearchParams(String((await byType('slash_command'))[0]!.fields.body));
    expect(Object.fromEntries(form)).toMatchObject({
      command: '/deploy',
      text: 'v2 now',
      user_id: w.ada.id,
      channel_id: w.general.id,
      team_domain: 'twinworld',
      api_app_id: w.app.id,
    });
    const payload = JSON.parse(
      new URLSearchParams(String((await byType('block_actions'))[0]!.fields.body)).get('payload')!,
    ) as Envelope;
    expect(payload).toMatchObject({
      type: 'block_actions',
      user: { id: grace.id },
      container: { message_ts: prompt.ts },
      message: { ts: prompt.ts, bot_id: w.app.bot_id },
      actions: [{ action_id: 'approve', value: 'v1.2.0', block_id: 'decision', type: 'button' }],
    });
  });

  it('names the retry reason after the attempt before', async () => {
    expect(slack.slackRetryReason({ state: 'failed', status: 500, reason: 'http_status' })).toBe(
      'http_error',
    );
    expect(slack.slackRetryReason({ state: 'unknown', status: null, reason: 'timeout' })).toBe(
      'http_timeout',
    );
    expect(
      slack.slackRetryReason({ state: 'unknown', status: null, reason: 'connection_error' }),
    ).toBe('connection_failed');
    expect(
      slack.slackRetryReason({ state: 'unknown', status: null, reason: 'recovered_after_crash' }),
    ).toBe('unknown_error');
  });
});

describe('slack delivery over HTTP', () => {
  it('retries three times (immediately, ~1 min, ~5 min) with retry headers; every attempt verifies with Bolt', async () => {
    // 500, then too slow for Slack's 3 s (shortened here), then 500 again, then accepted. The slow
    // one never answers while the sender waits: it times out by its own clock, whatever the load
    // (a 600 ms answer against a 200 ms timeout raced the quick answers on a busy machine).
    let late: (status: number) => void = () => {};
    const answers: (() => Promise<number>)[] = [
      async () => 500,
      () => new Promise((r) => (late = r)),
      async () => 500,
      async () => 200,
    ];
    const receiver = await startReceiver(() => (answers.shift() ?? (async () => 200))());
    receivers.push(receiver);
    const fastPack = { ...slack.pack, events: { ...slack.pack.events, timeoutMs: 1_500 } };
    const { clock, world, twin, dispatcher } = virtualWorld(fastPack);
    const secret = secrets.slack();
    const w = await workspace(twin, `${receiver.url}/slack/events`, ['app_mention'], secret);
    await slack.postMessage(twin, {
      channel: w.general.id,
      user: w.ada.id,
      text: `${slack.mention(w.app.bot_user_id)} ping`,
    });
    await dispatcher.idle();
    await clock.advance(0); // the first retry is immediate
    await dispatcher.idle();
    expect(receiver.requests).toHaveLength(2);
    await clock.advance(60_000);
    await dispatcher.idle();
    expect(receiver.requests).toHaveLength(3);
    await clock.advance(300_000);
    await dispatcher.idle();
    expect(receiver.requests).toHaveLength(4);

    const [first, ...retries] = receiver.requests;
    expect(first!.headers['x-slack-retry-num']).toBeUndefined();
    expect(first!.headers['x-slack-retry-reason']).toBeUndefined();
    expect(retries.map((r) => header(r, 'x-slack-retry-num'))).toEqual(['1', '2', '3']);
    const reasons = retries.map((r) => header(r, 'x-slack-retry-reason'));
    expect(reasons[0]).toBe('http_error');
    // after a timeout: http_timeout once the kernel passes the attempt's reason, unknown_error until then
    expect(['http_timeout', 'unknown_error']).toContain(reasons[1]);
    expect(reasons[2]).toBe('http_error');
    const eventIds = new Set<string>();
    for (const req of receiver.requests) {
      const body = await slackVerifier.verify(req, secret);
      expect(slackVerifier.eventType(req, body)).toBe('app_mention');
      eventIds.add(String(body.event_id));
      expect(header(req, 'user-agent')).toBe('Slackbot 1.0 (+https://api.slack.com/robots)');
    }
    expect(eventIds.size).toBe(1); // the same event_id on every retry
    await expect(slackVerifier.verify(first!, secrets.slack())).rejects.toThrow();
    expect((await twin.list('event_delivery'))[0]!.fields).toMatchObject({
      state: 'succeeded',
      attempts: 4,
    });
    late(200); // the timed-out request's answer, long after its sender gave up
    await world.close();
  });
});
