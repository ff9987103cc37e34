// Edits and deletions of a posted message (chat.update / chat.delete): each reaches an app
// subscribed to messages as a `message` event with Slack's subtype — message_changed carrying the
// message now and before, message_deleted the deleted ts — checked against @slack/types' required
// keys and received by a real Bolt app, which verifies each signature. Only the author may edit
// or delete; ephemeral messages send nothing. A direct message with the bot goes out as
// `message` with channel_type "im" to an app subscribed to message.im, and only those.
import { App, HTTPReceiver } from '@slack/bolt';
import type { AddressInfo, Server } from 'node:net';
import { describe, expect, it } from 'vitest';
import { Dispatcher, openWorld, registerPack, type Twin } from '../../src/index.js';
import * as slack from '../../packs/slack/index.js';
import { MESSAGE, MESSAGE_CHANGED, MESSAGE_DELETED } from './slack-reference.js';
import { secrets } from './support.js';

type Body = Record<string, any>;

function missing(value: unknown, keys: Readonly<Record<string, true>>, path: string): string[] {
  if (value === null || typeof value !== 'object') return [`${path} is not an object`];
  return Object.keys(keys)
    .filter((k) => (value as Body)[k] === undefined || (value as Body)[k] === null)
    .map((k) => `${path}.${k}`);
}

// The messages inside an edit event are the message objects Slack keeps, without the event's
// own channel, channel_type and event_ts (which @slack/types' MessageEvent lists).
const { channel: _c, channel_type: _t, event_ts: _e, ...INNER_MESSAGE } = MESSAGE;

async function bodies(twin: Twin): Promise<Body[]> {
  return (await twin.list('event_delivery'))
    .sort((a, b) => a.version - b.version)
    .filter((d) => d.fields.eventType === 'message')
    .map((d) => JSON.parse(String(d.fields.body)) as Body);
}

describe('message edits and deletions', () => {
  it('send message_changed and message_deleted with every required key, and Bolt receives both', async () => {
    const signingSecret = secrets.slack();
    // A real-clock world: Bolt checks X-Slack-Request-Timestamp against its own clock.
    const world = openWorld({ root: ':memory:', seed: 'edits' });
    const twin = registerPack(world, slack.pack);
    const dispatcher = new Dispatcher(world);
    const seen: string[] = [];
    const receiver = new HTTPReceiver({
      signingSecret,
      endpoints: '/slack/events',
      processBeforeResponse: true,
    });
    const server = (await receiver.start(0)) as unknown as Server;
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/slack/events`;
      const team = await slack.createTeam(twin, { name: 'Twinworld' });
      const ada = await slack.createUser(twin, { team: team.id, name: 'ada' });
      const bob = await slack.createUser(twin, { team: team.id, name: 'bob' });
      const general = await slack.createChannel(twin, {
        team: team.id,
        name: 'general',
        creator: ada.id,
      });
      const { app } = await slack.createApp(twin, {
        team: team.id,
        name: 'Deployer',
        request_url: url,
        signing_secret: signingSecret,
        bot_events: ['message.channels'],
      });
      // The bot's ids are given, so Bolt never calls Slack's API.
      const bolt = new App({
        receiver,
        token: 'xoxb-twinworld',
        botId: app.bot_id,
        botUserId: app.bot_user_id,
        tokenVerificationEnabled: false,
      });
      bolt.event('message', async ({ event }) => void seen.push(event.subtype ?? 'new'));
      const posted = await slack.postMessage(twin, {
        channel: general.id,
        user: ada.id,
        text: 'deploy v1',
      });
      const edit = { channel: general.id, ts: posted.ts };
      await expect(
        slack.updateMessage(twin, { ...edit, user: bob.id, text: 'mine' }),
      ).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', vendorCode: 'cant_update_message' });
      await expect(slack.deleteMessage(twin, { ...edit, user: bob.id })).rejects.toMatchObject({
        vendorCode: 'cant_delete_message',
      });
      await expect(slack.updateMessage(twin, { ...edit, user: ada.id })).rejects.toMatchObject({
        vendorCode: 'no_text',
      });
      await slack.updateMessage(twin, { ...edit, user: ada.id, text: 'deploy v2' });
      await slack.postEphemeral(twin, {
        channel: general.id,
        user: ada.id,
        author: bob.id,
        text: 'psst',
      });
      // an author from another workspace cannot whisper into this one's channel
      const other = await slack.createTeam(twin, { name: 'Elsewhere' });
      const eve = await slack.createUser(twin, { team: other.id, name: 'eve' });
      await expect(
        slack.postEphemeral(twin, {
          channel: general.id,
          user: ada.id,
          author: eve.id,
          text: 'hi',
        }),
      ).rejects.toMatchObject({ vendorCode: 'channel_not_found' });
      await slack.deleteMessage(twin, { ...edit, user: ada.id });
      await expect(slack.deleteMessage(twin, { ...edit, user: ada.id })).rejects.toMatchObject({
        vendorCode: 'message_not_found',
      });
      await dispatcher.idle();
      const [created, changed, deleted, ...rest] = await bodies(twin);
      expect(rest).toEqual([]);
      expect(created!.event).toMatchObject({ text: 'deploy v1' });
      expect(missing(changed!.event, MESSAGE_CHANGED, 'event')).toEqual([]);
      expect(missing(changed!.event.message, INNER_MESSAGE, 'event.message')).toEqual([]);
      expect(missing(changed!.event.previous_message, INNER_MESSAGE, 'previous')).toEqual([]);
      expect(changed!.event).toMatchObject({
        subtype: 'message_changed',
        channel: general.id,
        message: { text: 'deploy v2', ts: posted.ts, edited: { user: ada.id } },
        previous_message: { text: 'deploy v1', ts: posted.ts },
      });
      expect(changed!.event.previous_message.edited).toBeUndefined();
      expect(missing(deleted!.event, MESSAGE_DELETED, 'event')).toEqual([]);
      expect(deleted!.event).toMatchObject({
        subtype: 'message_deleted',
        deleted_ts: posted.ts,
        previous_message: { text: 'deploy v2' },
      });
      for (const d of await twin.list('event_delivery'))
        expect(d.fields).toMatchObject({ state: 'succeeded', attempts: 1 });
      expect(seen).toEqual(['new', 'message_changed', 'message_deleted']);
    } finally {
      await receiver.stop();
      await dispatcher.close();
      await world.close();
    }
  });

  it("deleting a thread's parent with replies sends message_changed to a tombstone, with every required key", async () => {
    const world = openWorld({ root: ':memory:', seed: 'tombstone' });
    const twin = registerPack(world, slack.pack);
    try {
      const team = await slack.createTeam(twin, { name: 'Twinworld' });
      const ada = await slack.createUser(twin, { team: team.id, name: 'ada' });
      const general = await slack.createChannel(twin, {
        team: team.id,
        name: 'general',
        creator: ada.id,
      });
      await slack.createApp(twin, {
        team: team.id,
        name: 'Deployer',
        request_url: 'http://127.0.0.1:9/slack/events',
        signing_secret: secrets.slack(),
        bot_events: ['message.channels'],
      });
      const at = { channel: general.id, user: ada.id };
      const parent = await slack.postMessage(twin, { ...at, text: 'deploy v1' });
      const reply = await slack.postMessage(twin, { ...at, text: 'done', thread_ts: parent.ts });
      await slack.deleteMessage(twin, { ...at, ts: parent.ts });
      expect(await twin.get('message', `${general.id}:${parent.ts}`)).toMatchObject({
        deleted: false,
        fields: { subtype: 'tombstone', user: 'USLACKBOT' },
      });
      await slack.deleteMessage(twin, { ...at, ts: reply.ts });
      const [, , changed, replyGone, parentGone, ...rest] = await bodies(twin);
      expect(rest).toEqual([]);
      expect(missing(changed!.event, MESSAGE_CHANGED, 'event')).toEqual([]);
      expect(missing(changed!.event.message, INNER_MESSAGE, 'event.message')).toEqual([]);
      expect(changed!.event).toMatchObject({
        subtype: 'message_changed',
        message: {
          subtype: 'tombstone',
          text: 'This message was deleted.',
          ts: parent.ts,
          thread_ts: parent.ts,
          reply_count: 1,
          latest_reply: reply.ts,
        },
        previous_message: { text: 'deploy v1', user: ada.id },
      });
      expect(changed!.event.message.client_msg_id).toBeUndefined();
      for (const gone of [replyGone, parentGone])
        expect(missing(gone!.event, MESSAGE_DELETED, 'event')).toEqual([]);
      expect(replyGone!.event).toMatchObject({ deleted_ts: reply.ts });
      expect(parentGone!.event).toMatchObject({
        deleted_ts: parent.ts,
        previous_message: { subtype: 'tombstone', reply_count: 0 },
      });
      expect(await twin.get('message', `${general.id}:${parent.ts}`)).toMatchObject({
        deleted: true,
      });
    } finally {
      await world.close();
    }
  });

  it('a direct message with the bot reaches an app subscribed to message.im; other messages do not', async () => {
    const world = openWorld({ root: ':memory:', seed: 'dms' });
    const twin = registerPack(world, slack.pack);
    try {
      const team = await slack.createTeam(twin, { name: 'Twinworld' });
      const ada = await slack.createUser(twin, { team: team.id, name: 'ada' });
      const bob = await slack.createUser(twin, { team: team.id, name: 'bob' });
      const general = await slack.createChannel(twin, {
        team: team.id,
        name: 'general',
        creator: ada.id,
      });
      const { app } = await slack.createApp(twin, {
        team: team.id,
        name: 'Deployer',
        request_url: 'http://127.0.0.1:9/slack/events',
        signing_secret: secrets.slack(),
        bot_events: ['message.im'],
      });
      const withBot = await slack.openDirectMessage(twin, { user: app.bot_user_id, other: ada.id });
      const between = await slack.openDirectMessage(twin, { user: ada.id, other: bob.id });
      expect(withBot.opened && between.opened).toBe(true);
      await slack.postMessage(twin, { channel: withBot.im.id, user: ada.id, text: 'hi bot' });
      await slack.postMessage(twin, { channel: between.im.id, user: ada.id, text: 'hi bob' });
      await slack.postMessage(twin, { channel: general.id, user: ada.id, text: 'hi all' });
      await expect(
        slack.postMessage(twin, { channel: between.im.id, user: app.bot_user_id, text: 'psst' }),
      ).rejects.toMatchObject({ vendorCode: 'channel_not_found' });
      await expect(
        slack.joinChannel(twin, { channel: withBot.im.id, user: bob.id }),
      ).rejects.toMatchObject({ vendorCode: 'method_not_supported_for_channel_type' });
      const [only, ...rest] = await bodies(twin);
      expect(rest).toEqual([]);
      expect(missing(only!.event, MESSAGE, 'event')).toEqual([]);
      expect(only!.event).toMatchObject({
        text: 'hi bot',
        channel: withBot.im.id,
        channel_type: 'im',
      });
    } finally {
      await world.close();
    }
  });
});
