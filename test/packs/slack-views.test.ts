// The Slack events beyond a conversation — a reaction taken back, a channel made, a person
// joining, an App Home published then opened, a modal submitted, global and message shortcuts,
// and an uninstall with its token revocation — received and verified by a real Bolt app, and
// each refusal Slack makes, typed, with nothing appended.
import { App, HTTPReceiver } from '@slack/bolt';
import type { AddressInfo, Server } from 'node:net';
import { describe, expect, it } from 'vitest';
import { Dispatcher, openWorld, registerPack, VirtualClock } from '../../src/index.js';
import * as slack from '../../packs/slack/index.js';
import { FEEDBACK_MODAL } from '../../packs/slack/recipes.js';
import { secrets } from './support.js';

const HOME = {
  type: 'home' as const,
  blocks: [{ type: 'section', text: { type: 'mrkdwn', text: '*Welcome home*' } }],
};

async function workspace(world: ReturnType<typeof openWorld>, signingSecret: string, url: string) {
  const twin = registerPack(world, slack.pack);
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
    name: 'Helper',
    request_url: url,
    interactivity_url: url,
    signing_secret: signingSecret,
    bot_events: [
      'reaction_removed',
      'channel_created',
      'team_join',
      'app_home_opened',
      'app_uninstalled',
      'tokens_revoked',
    ],
  });
  return { twin, team, ada, general, app };
}

describe('slack views, shortcuts and workspace events', () => {
  it('a Bolt app verifies and handles each of them', async () => {
    const signingSecret = secrets.slack();
    const world = openWorld({ root: ':memory:', seed: 'bolt-views' });
    const receiver = new HTTPReceiver({
      signingSecret,
      endpoints: '/slack/events',
      processBeforeResponse: true,
    });
    const server = (await receiver.start(0)) as unknown as Server;
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/slack/events`;
    try {
      const s = await workspace(world, signingSecret, url);
      // Started once the pack is registered: it delivers what the writes from here on send.
      const dispatcher = new Dispatcher(world);
      const bolt = new App({
        receiver,
        token: 'xoxb-twinworld',
        botId: s.app.bot_id,
        botUserId: s.app.bot_user_id,
        tokenVerificationEnabled: false,
        ignoreSelf: false,
      });
      const seen: string[] = [];
      for (const type of [
        'reaction_removed',
        'channel_created',
        'team_join',
        'app_uninstalled',
        'tokens_revoked',
      ] as const)
        bolt.event(type, async ({ event }) => void seen.push(`event:${event.type}`));
      bolt.event('app_home_opened', async ({ event }) => {
        const block = event.view?.blocks[0] as { text?: { text?: string } } | undefined;
        seen.push(`home:${block?.text?.text}`);
      });
      bolt.view('feedback', async ({ ack, view }) => {
        await ack();
        seen.push(`view:${view.state.values.comment!.text!.value}`);
      });
      bolt.shortcut('new_ticket', async ({ ack, shortcut }) => {
        await ack();
        seen.push(`shortcut:${shortcut.type}`);
      });
      bolt.shortcut('file_bug', async ({ ack, shortcut }) => {
        await ack();
        seen.push(
          `shortcut:${shortcut.type}:${(shortcut as { message: { text: string } }).message.text}`,
        );
      });

      const posted = await slack.postMessage(s.twin, {
        channel: s.general.id,
        user: s.ada.id,
        text: 'Broken build',
      });
      const at = { channel: s.general.id, ts: posted.ts, user: s.ada.id, name: 'eyes' };
      await slack.addReaction(s.twin, at);
      await slack.removeReaction(s.twin, at);
      // Taken back, it can be given again.
      await slack.addReaction(s.twin, at);
      await slack.createChannel(s.twin, { team: s.team.id, name: 'incidents', creator: s.ada.id });
      await slack.createUser(s.twin, { team: s.team.id, name: 'grace', real_name: 'Grace Hopper' });
      await slack.publishView(s.twin, { app: s.app.id, user: s.ada.id, view: HOME });
      await slack.openAppHome(s.twin, { app: s.app.id, user: s.ada.id });
      const modal = await slack.openView(s.twin, {
        app: s.app.id,
        user: s.ada.id,
        view: FEEDBACK_MODAL,
      });
      await slack.submitView(s.twin, {
        view_id: modal.id,
        user: s.ada.id,
        values: { comment: { text: { type: 'plain_text_input', value: 'Ship it' } } },
      });
      await slack.runShortcut(s.twin, {
        team: s.team.id,
        user: s.ada.id,
        callback_id: 'new_ticket',
      });
      await slack.runShortcut(s.twin, {
        team: s.team.id,
        user: s.ada.id,
        callback_id: 'file_bug',
        channel: s.general.id,
        ts: posted.ts,
      });
      await slack.uninstallApp(s.twin, s.app.id);
      await dispatcher.idle();

      const deliveries = await s.twin.list('event_delivery');
      for (const d of deliveries)
        expect(d.fields, String(d.fields.eventType)).toMatchObject({
          state: 'succeeded',
          lastStatus: 200,
          attempts: 1,
        });
      expect(seen.sort()).toEqual(
        [
          'event:reaction_removed',
          'event:channel_created',
          'event:team_join',
          'home:*Welcome home*',
          'view:Ship it',
          'shortcut:shortcut',
          'shortcut:message_action:Broken build',
          'event:tokens_revoked',
          'event:app_uninstalled',
        ].sort(),
      );
      // Slack's order on uninstall: the token goes first.
      const uninstall = deliveries.filter((d) =>
        ['tokens_revoked', 'app_uninstalled'].includes(String(d.fields.eventType)),
      );
      expect(
        uninstall
          .sort((a, b) => a.version - b.version || (a.id < b.id ? -1 : 1))
          .map((d) => d.fields.eventType),
      ).toEqual(['tokens_revoked', 'app_uninstalled']);
    } finally {
      await world.close();
      await receiver.stop();
    }
  });

  it('refusals: no reaction to remove, views of someone else or without submit, shortcuts without an Interactivity URL, a second uninstall', async () => {
    const world = openWorld({
      root: ':memory:',
      clock: new VirtualClock('2026-06-01T09:00:00Z'),
      seed: 'views-refusals',
    });
    const s = await workspace(world, secrets.slack(), 'https://app.example.com/slack/events');
    const bob = await slack.createUser(s.twin, { team: s.team.id, name: 'bob' });
    const posted = await slack.postMessage(s.twin, {
      channel: s.general.id,
      user: s.ada.id,
      text: 'hi',
    });
    const modal = await slack.openView(s.twin, {
      app: s.app.id,
      user: s.ada.id,
      view: FEEDBACK_MODAL,
    });
    const noSubmit = await slack.openView(s.twin, {
      app: s.app.id,
      user: s.ada.id,
      view: { ...FEEDBACK_MODAL, submit: undefined },
    });
    const before = await s.twin.head();
    const code = (vendorCode: string) => expect.objectContaining({ vendorCode });
    await expect(
      slack.removeReaction(s.twin, {
        channel: s.general.id,
        ts: posted.ts,
        user: s.ada.id,
        name: 'tada',
      }),
    ).rejects.toThrow(code('no_reaction'));
    await expect(slack.submitView(s.twin, { view_id: modal.id, user: bob.id })).rejects.toThrow(
      code('not_authed'),
    );
    await expect(
      slack.submitView(s.twin, { view_id: noSubmit.id, user: s.ada.id }),
    ).rejects.toThrow(/no submit button/);
    await expect(
      slack.submitView(s.twin, { view_id: 'V0000000000', user: s.ada.id }),
    ).rejects.toThrow(code('not_found'));
    await expect(
      slack.openView(s.twin, {
        app: s.app.id,
        user: s.ada.id,
        view: { ...FEEDBACK_MODAL, title: { type: 'plain_text', text: 'x'.repeat(25) } },
      }),
    ).rejects.toThrow(expect.objectContaining({ path: 'view.title' }));
    await expect(
      slack.publishView(s.twin, { app: s.app.id, user: s.ada.id, view: FEEDBACK_MODAL as never }),
    ).rejects.toThrow(/type "home"/);
    await expect(
      slack.runShortcut(s.twin, { team: s.team.id, user: s.ada.id, callback_id: 'bad id!' }),
    ).rejects.toThrow(expect.objectContaining({ path: 'callback_id' }));
    expect(await s.twin.head()).toBe(before);
    await slack.uninstallApp(s.twin, s.app.id);
    const after = await s.twin.head();
    await expect(slack.uninstallApp(s.twin, s.app.id)).rejects.toThrow(code('app_not_found'));
    await expect(
      slack.openView(s.twin, { app: s.app.id, user: s.ada.id, view: FEEDBACK_MODAL }),
    ).rejects.toThrow(code('app_not_found'));
    expect(await s.twin.head()).toBe(after);

    // Another workspace whose app has no Interactivity URL refuses shortcuts.
    const team = await slack.createTeam(s.twin, { name: 'Other' });
    const eve = await slack.createUser(s.twin, { team: team.id, name: 'eve' });
    await slack.createApp(s.twin, {
      team: team.id,
      name: 'Plain',
      request_url: 'https://plain.example.com/events',
    });
    await expect(
      slack.runShortcut(s.twin, { team: team.id, user: eve.id, callback_id: 'new_ticket' }),
    ).rejects.toThrow(code('interactivity_disabled'));
    await world.close();
  });
});
