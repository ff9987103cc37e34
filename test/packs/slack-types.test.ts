// Every payload the Slack pack renders, checked against Slack's own types at run time (the key
// lists in slack-reference.ts are compiled against @slack/types and @slack/bolt), and received by
// a real Bolt app over HTTP: Bolt verifies each signature, parses JSON and form bodies by their
// content type, answers the url_verification challenge, and routes events, actions and commands
// to the app's handlers.
import { App, HTTPReceiver } from '@slack/bolt';
import type { AddressInfo, Server } from 'node:net';
import { describe, expect, it } from 'vitest';
import {
  Dispatcher,
  openWorld,
  registerPack,
  VirtualClock,
  type SignedPacket,
  type Twin,
} from '../../src/index.js';
import * as slack from '../../packs/slack/index.js';
import {
  BLOCK_ACTIONS,
  BLOCK_ACTIONS_CHANNEL,
  BLOCK_ACTIONS_MESSAGE,
  BLOCK_ACTIONS_USER,
  BUTTON_ACTION,
  CHANNEL_CREATED_CHANNEL,
  ENVELOPE,
  GLOBAL_SHORTCUT,
  INNER_EVENTS,
  MESSAGE_SHORTCUT,
  REACTION_ITEM,
  SLASH_COMMAND,
  TEAM_JOIN_USER,
  USER_CHANGE_USER,
  VIEW_OUTPUT,
  VIEW_SUBMISSION,
} from './slack-reference.js';
import { secrets } from './support.js';

type Body = Record<string, any>;

/** Keys absent, undefined or null; `nullable` names keys whose Slack type allows null. */
function missing(
  value: unknown,
  keys: Readonly<Record<string, true>>,
  path: string,
  nullable: readonly string[] = [],
): string[] {
  if (value === null || typeof value !== 'object') return [`${path} is not an object`];
  return Object.keys(keys)
    .filter(
      (k) =>
        !(k in value) ||
        (value as Body)[k] === undefined ||
        ((value as Body)[k] === null && !nullable.includes(k)),
    )
    .map((k) => `${path}.${k}`);
}

/** The body as Bolt reads it: JSON, or a form — `payload=<JSON>` or plain fields. */
function parse(contentType: string, body: string): Body {
  if (contentType !== 'application/x-www-form-urlencoded') return JSON.parse(body) as Body;
  const form = new URLSearchParams(body);
  return form.has('payload')
    ? (JSON.parse(form.get('payload')!) as Body)
    : Object.fromEntries(form);
}

/** Every Slack reference check for one rendered packet; [] when it holds. */
function problems(eventType: string, body: Body): string[] {
  switch (eventType) {
    case 'url_verification':
      return [
        ...missing(body, { token: true, challenge: true, type: true }, 'body'),
        ...(Object.keys(body).sort().join() === 'challenge,token,type'
          ? []
          : ['url_verification carries exactly token, challenge and type']),
      ];
    case 'block_actions':
      return [
        ...missing(body, BLOCK_ACTIONS, 'payload'),
        ...missing(body.user, BLOCK_ACTIONS_USER, 'payload.user'),
        ...missing(body.channel, BLOCK_ACTIONS_CHANNEL, 'payload.channel'),
        ...missing(body.message, BLOCK_ACTIONS_MESSAGE, 'payload.message'),
        ...(body.actions as unknown[]).flatMap((a, i) =>
          missing(a, BUTTON_ACTION, `payload.actions[${i}]`),
        ),
      ];
    case 'slash_command':
      return missing(body, SLASH_COMMAND, 'form');
    case 'view_submission':
      // A first view has no previous one: Slack sends null.
      return [
        ...missing(body, VIEW_SUBMISSION, 'payload'),
        ...missing(body.view, VIEW_OUTPUT, 'payload.view', ['previous_view_id']),
      ];
    case 'shortcut':
      return missing(body, GLOBAL_SHORTCUT, 'payload');
    case 'message_action':
      return missing(body, MESSAGE_SHORTCUT, 'payload');
    default: {
      const out = [
        ...missing(body, ENVELOPE, 'envelope'),
        ...missing(body.event, INNER_EVENTS[eventType]!, 'event'),
      ];
      if (eventType === 'reaction_added' || eventType === 'reaction_removed')
        out.push(...missing(body.event.item, REACTION_ITEM, 'event.item'));
      if (eventType === 'channel_created')
        out.push(...missing(body.event.channel, CHANNEL_CREATED_CHANNEL, 'event.channel'));
      if (eventType === 'team_join')
        out.push(...missing(body.event.user, TEAM_JOIN_USER, 'event.user'));
      if (eventType === 'user_change')
        out.push(...missing(body.event.user, USER_CHANGE_USER, 'event.user'));
      if (body.type !== 'event_callback' || body.event?.type !== eventType)
        out.push(`not an event_callback carrying ${eventType}`);
      return out;
    }
  }
}

async function rendered(twin: Twin): Promise<{ eventType: string; body: string }[]> {
  return (await twin.list('event_delivery'))
    .sort((a, b) => a.version - b.version)
    .map((d) => ({ eventType: String(d.fields.eventType), body: String(d.fields.body) }));
}

const FORM = new Set([
  'block_actions',
  'slash_command',
  'view_submission',
  'shortcut',
  'message_action',
]);

describe("slack payloads against Slack's types", async () => {
  for (const eventType of Object.keys(slack.scenarios)) {
    it(`${eventType}: every required key of Slack's type is there`, async () => {
      const world = openWorld({
        root: ':memory:',
        clock: new VirtualClock('2026-06-01T09:00:00Z'),
        seed: `types-${eventType}`,
      });
      const twin = registerPack(world, slack.pack);
      await slack.scenarios[eventType]!({
        twin,
        target: { url: 'http://127.0.0.1:9/slack', secret: secrets.slack() },
        data: undefined,
      });
      const packets = (await rendered(twin)).filter((p) => p.eventType === eventType);
      expect(packets).toHaveLength(1);
      const body = parse(
        FORM.has(eventType) ? 'application/x-www-form-urlencoded' : 'application/json',
        packets[0]!.body,
      );
      expect(problems(eventType, body)).toEqual([]);
      await world.close();
    });
  }

  it('covers every event type the pack declares', () => {
    expect(Object.keys(slack.scenarios).sort()).toEqual([...slack.SLACK_EVENT_TYPES].sort());
  });

  it('the check can fail: a payload without a required key is reported', () => {
    expect(
      problems('reaction_added', {
        type: 'event_callback',
        token: 't',
        team_id: 'T',
        api_app_id: 'A',
        event_id: 'Ev1',
        event_time: 1,
        event: {
          type: 'reaction_added',
          user: 'U',
          item: { type: 'message', channel: 'C' },
          item_user: 'U',
          event_ts: '1.0',
        },
      }),
    ).toEqual(['event.reaction', 'event.item.ts']);
    expect(problems('slash_command', { token: 't', command: '/x' })).toContain('form.trigger_id');
  });
});

describe('slack packets received by a Bolt app', () => {
  it("Bolt verifies every packet, answers the challenge, and runs the app's handlers for events, the button and the command", async () => {
    const signingSecret = secrets.slack();
    // A real-clock world: Bolt checks X-Slack-Request-Timestamp against its own clock.
    const world = openWorld({ root: ':memory:', seed: 'bolt' });
    const twin = registerPack(world, slack.pack);
    const dispatcher = new Dispatcher(world);
    const packets: SignedPacket[] = [];
    dispatcher.observe((p) => packets.push(p));
    const team = await slack.createTeam(twin, { name: 'Twinworld' });
    const ada = await slack.createUser(twin, { team: team.id, name: 'ada' });
    const grace = await slack.createUser(twin, { team: team.id, name: 'grace' });
    const general = await slack.createChannel(twin, {
      team: team.id,
      name: 'general',
      creator: ada.id,
    });
    const { app } = await slack.createApp(twin, {
      team: team.id,
      name: 'Deployer',
      request_url: 'https://old.example.com/slack/events',
      signing_secret: signingSecret,
      bot_events: [
        'message.channels',
        'app_mention',
        'reaction_added',
        'member_joined_channel',
        'app_home_opened',
      ],
    });

    // The bot's ids are given, so Bolt never calls Slack's API (there is no network here).
    const receiver = new HTTPReceiver({
      signingSecret,
      endpoints: '/slack/events',
      processBeforeResponse: true,
    });
    const bolt = new App({
      receiver,
      token: 'xoxb-twinworld',
      botId: app.bot_id,
      botUserId: app.bot_user_id,
      tokenVerificationEnabled: false,
      ignoreSelf: false,
    });
    const seen: string[] = [];
    for (const type of [
      'app_mention',
      'reaction_added',
      'member_joined_channel',
      'app_home_opened',
      'message',
    ] as const) {
      bolt.event(type, async ({ event }) => void seen.push(`event:${event.type}`));
    }
    bolt.action('approve', async ({ ack, body, action }) => {
      await ack();
      seen.push(
        `action:${(action as { action_id: string }).action_id}:${(body as { actions: { value?: string }[] }).actions[0]!.value}`,
      );
    });
    bolt.command('/deploy', async ({ ack, command }) => {
      await ack();
      seen.push(`command:${command.command}:${command.text}`);
    });
    const server = (await receiver.start(0)) as unknown as Server;
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/slack/events`;
    try {
      await slack.setInteractivityUrl(twin, app.id, { request_url: url });
      await slack.createSlashCommand(twin, { team: team.id, command: '/deploy', url });
      await slack.slackConversation(twin, {
        team: team.id,
        channel: general.id,
        asker: ada.id,
        newcomer: grace.id,
        command: '/deploy',
        eventsUrl: url,
      });
      await dispatcher.idle();

      const attempts = await twin.list('event_delivery');
      expect(attempts).toHaveLength(10);
      for (const d of attempts)
        expect(d.fields, String(d.fields.eventType)).toMatchObject({
          state: 'succeeded',
          lastStatus: 200,
          attempts: 1,
        });
      expect(new Set(attempts.map((d) => d.fields.eventType))).toEqual(
        new Set([
          'message',
          'app_mention',
          'reaction_added',
          'member_joined_channel',
          'app_home_opened',
          'url_verification',
          'block_actions',
          'slash_command',
        ]),
      );
      expect(seen).toEqual(
        expect.arrayContaining([
          'event:member_joined_channel',
          'event:app_home_opened',
          'event:app_mention',
          'action:approve:v1.2.0',
          'command:/deploy:v1.2.0 to production',
          'event:reaction_added',
          'event:message',
        ]),
      );

      // The packets as sent: the right content type per kind, each passing the reference check.
      for (const p of packets) {
        const contentType = p.headers['content-type']!;
        expect(contentType, p.eventType).toBe(
          FORM.has(p.eventType) ? 'application/x-www-form-urlencoded' : 'application/json',
        );
        expect(problems(p.eventType, parse(contentType, p.body)), p.eventType).toEqual([]);
      }
      // Replayed to Bolt, the url_verification packet gets its challenge back, as Slack requires.
      const challenge = packets.find((p) => p.eventType === 'url_verification')!;
      const answer = await fetch(url, {
        method: 'POST',
        headers: challenge.headers,
        body: challenge.body,
      });
      expect(answer.status).toBe(200);
      expect(await answer.json()).toEqual({ challenge: JSON.parse(challenge.body).challenge });
      expect(JSON.parse(challenge.body)).toMatchObject({
        type: 'url_verification',
        token: app.verification_token,
      });
      // And a packet signed with another secret is refused by Bolt.
      const forged = await fetch(url, {
        method: 'POST',
        headers: { ...challenge.headers, 'x-slack-signature': `v0=${'0'.repeat(64)}` },
        body: challenge.body,
      });
      expect(forged.status).toBe(401);
    } finally {
      await world.close();
      await receiver.stop();
    }
  });
});
