// sendEvent / listSendable, the library behind `twinworld send`: what can be sent, refusals that
// list the valid choices, outcomes for accepting, failing and absent receivers, --data, retired
// endpoints, an on-disk world, and deterministic bodies for a seeded virtual world.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openWorld, registeredPacks, VirtualClock } from '../../src/index.js';
import { builtInPacks } from '../../packs/index.js';
import { listSendable, sendEvent } from '../../packs/send.js';
import { createStandardWebhooksPack } from '../../packs/standard-webhooks/pack.js';
import { collect } from '../support/backends.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { secrets } from './support.js';
import { standardWebhooksVerifier, stripeVerifier } from './verifiers.js';

const receivers: Receiver[] = [];
async function receiver(answer?: Parameters<typeof startReceiver>[0]): Promise<Receiver> {
  const r = await startReceiver(answer);
  receivers.push(r);
  return r;
}
afterAll(async () => {
  for (const r of receivers) await r.close();
});

describe('listSendable', () => {
  it('lists every (pack, event type), sorted', () => {
    expect(listSendable().map((s) => `${s.pack} ${s.eventType}`)).toEqual([
      'github check_run.completed',
      'github check_run.created',
      'github check_suite.completed',
      'github create',
      'github delete',
      'github installation.created',
      'github installation.deleted',
      'github installation_repositories.added',
      'github issue_comment.created',
      'github issues.assigned',
      'github issues.closed',
      'github issues.edited',
      'github issues.labeled',
      'github issues.opened',
      'github ping',
      'github pull_request.assigned',
      'github pull_request.closed',
      'github pull_request.edited',
      'github pull_request.labeled',
      'github pull_request.opened',
      'github pull_request.reopened',
      'github pull_request.review_requested',
      'github pull_request.synchronize',
      'github pull_request_review.submitted',
      'github pull_request_review_comment.created',
      'github push',
      'github release.created',
      'github release.published',
      'github star.created',
      'github star.deleted',
      'github status',
      'github workflow_job.completed',
      'github workflow_job.queued',
      'github workflow_run.completed',
      'github workflow_run.in_progress',
      'github workflow_run.requested',
      'slack app_home_opened',
      'slack app_mention',
      'slack app_uninstalled',
      'slack block_actions',
      'slack channel_created',
      'slack member_joined_channel',
      'slack member_left_channel',
      'slack message',
      'slack message_action',
      'slack reaction_added',
      'slack reaction_removed',
      'slack shortcut',
      'slack slash_command',
      'slack team_join',
      'slack tokens_revoked',
      'slack url_verification',
      'slack user_change',
      'slack view_submission',
      'standard-webhooks contact.created',
      'standard-webhooks contact.deleted',
      'standard-webhooks contact.updated',
      'standard-webhooks invoice.paid',
      'standard-webhooks invoice.payment_failed',
      'stripe charge.captured',
      'stripe charge.dispute.created',
      'stripe charge.failed',
      'stripe charge.refunded',
      'stripe charge.succeeded',
      'stripe checkout.session.async_payment_failed',
      'stripe checkout.session.async_payment_succeeded',
      'stripe checkout.session.completed',
      'stripe checkout.session.expired',
      'stripe customer.created',
      'stripe customer.deleted',
      'stripe customer.subscription.created',
      'stripe customer.subscription.deleted',
      'stripe customer.subscription.trial_will_end',
      'stripe customer.subscription.updated',
      'stripe customer.updated',
      'stripe invoice.created',
      'stripe invoice.finalized',
      'stripe invoice.marked_uncollectible',
      'stripe invoice.paid',
      'stripe invoice.payment_failed',
      'stripe invoice.payment_succeeded',
      'stripe invoice.upcoming',
      'stripe invoice.voided',
      'stripe payment_intent.amount_capturable_updated',
      'stripe payment_intent.canceled',
      'stripe payment_intent.created',
      'stripe payment_intent.payment_failed',
      'stripe payment_intent.requires_action',
      'stripe payment_intent.succeeded',
      'stripe payment_method.attached',
      'stripe payment_method.detached',
      'stripe price.created',
      'stripe product.created',
      'stripe setup_intent.canceled',
      'stripe setup_intent.created',
      'stripe setup_intent.requires_action',
      'stripe setup_intent.setup_failed',
      'stripe setup_intent.succeeded',
    ]);
    expect(builtInPacks.map((p) => p.name).sort()).toEqual([
      'github',
      'slack',
      'standard-webhooks',
      'stripe',
    ]);
  });
});

describe('twinworld send --list', () => {
  it('shows the GitHub, Slack and Standard Webhooks event types', () => {
    const run = spawnSync(process.execPath, ['dist/src/cli/main.js', 'send', '--list'], {
      encoding: 'utf8',
    });
    expect(run.status).toBe(0);
    const rows = run.stdout.split('\n').map((line) => line.trim().split(/\s+/).join(' '));
    for (const row of [
      'github ping',
      'github push',
      'github pull_request.synchronize',
      'github check_suite.completed',
      'github workflow_run.completed',
      'github installation.created',
      'github release.published',
      'github star.created',
      'slack url_verification',
      'slack block_actions',
      'slack slash_command',
      'slack app_home_opened',
      'standard-webhooks invoice.paid',
    ]) {
      expect(rows, row).toContain(row);
    }
  });
});

describe('sendEvent', () => {
  it('refuses an unknown pack or event type, listing the valid ones, before touching the world', async () => {
    const world = openWorld({ root: ':memory:' });
    const unknownPack = await sendEvent(world, {
      pack: 'paypal',
      eventType: 'x',
      to: 'http://127.0.0.1:1',
      secret: 's',
    }).catch((e: unknown) => e);
    expect(unknownPack).toMatchObject({
      code: 'UNKNOWN_PACK',
      message: 'unknown pack "paypal"; valid packs: github, slack, standard-webhooks, stripe',
      details: { valid: ['github', 'slack', 'standard-webhooks', 'stripe'] },
    });
    const unknownType = await sendEvent(world, {
      pack: 'stripe',
      eventType: 'invoice.sent',
      to: 'http://127.0.0.1:1',
      secret: 's',
    }).catch((e: unknown) => e);
    expect(unknownType).toMatchObject({ code: 'UNKNOWN_EVENT_TYPE', path: 'eventType' });
    expect((unknownType as Error).message).toContain(
      'charge.dispute.created, charge.failed, charge.refunded, charge.succeeded, checkout.session.async_payment_failed',
    );
    await expect(
      sendEvent(world, {
        pack: 'stripe',
        eventType: 'customer.created',
        to: 'not a url',
        secret: 's',
      }),
    ).rejects.toMatchObject({ path: 'to' });
    await expect(
      sendEvent(world, {
        pack: 'stripe',
        eventType: 'customer.created',
        to: 'http://127.0.0.1:1',
        secret: ' ',
      }),
    ).rejects.toMatchObject({ path: 'secret' });
    expect(registeredPacks(world).size).toBe(0);
    await world.close();
  });

  it('reports a failing receiver (status, failed) and an absent one (no status, failed: not sent); the one-shot endpoint takes no retry', async () => {
    const failing = await receiver(() => 500);
    const world = openWorld({ root: ':memory:' });
    const failed = await sendEvent(world, {
      pack: 'stripe',
      eventType: 'customer.created',
      to: failing.url,
      secret: secrets.stripe(),
    });
    expect(failed).toMatchObject({
      outcome: 'failed',
      status: 500,
      reason: 'http_status',
      attempts: 1,
    });
    // Stripe's policy would retry, but a send's endpoint is retired after its one attempt: the
    // waiting retry is cancelled in the retiring commit, and nothing is left due.
    expect(failed.state).toBe('cancelled');
    const record = await world.twin('stripe').get('webhook_delivery', failed.deliveryId);
    expect(record!.fields).toMatchObject({
      state: 'cancelled',
      reason: 'endpoint_disabled',
      nextAttemptAt: null,
      dueAt: null,
    });
    const absent = await sendEvent(world, {
      pack: 'github',
      eventType: 'issues.opened',
      to: 'http://127.0.0.1:9/hooks',
      secret: secrets.github(),
    });
    // nothing listens there: the request provably never left
    expect(absent).toMatchObject({
      outcome: 'failed',
      status: null,
      reason: 'not_sent',
      attempts: 1,
    });
    expect(absent.state).toBe('failed'); // GitHub does not retry: nothing was waiting
    await world.close();
  });

  it('merges --data into the causing write, and a later send does not reach the endpoint an earlier one made', async () => {
    const first = await receiver();
    const second = await receiver();
    const world = openWorld({ root: ':memory:' });
    const secret = secrets.stripe();
    await sendEvent(world, {
      pack: 'stripe',
      eventType: 'customer.created',
      to: first.url,
      secret,
      data: { email: 'grace@example.com', name: 'Grace Hopper' },
    });
    await sendEvent(world, {
      pack: 'stripe',
      eventType: 'customer.created',
      to: second.url,
      secret,
    });
    expect(first.requests).toHaveLength(1);
    expect(second.requests).toHaveLength(1);
    const event = (await stripeVerifier.verify(first.requests[0]!, secret)) as {
      data: { object: { email: string; name: string } };
    };
    expect(event.data.object).toMatchObject({ email: 'grace@example.com', name: 'Grace Hopper' });
    expect(
      (await world.twin('stripe').list('webhook_endpoint')).map((e) => e.fields.status),
    ).toEqual(['disabled', 'disabled']);
    await world.close();
  });

  it('a scenario refused halfway (bad --data) retires the endpoint it had made', async () => {
    const first = await receiver();
    const second = await receiver();
    const world = openWorld({ root: ':memory:' });
    const secret = secrets.stripe();
    await expect(
      sendEvent(world, {
        pack: 'stripe',
        eventType: 'customer.created',
        to: first.url,
        secret,
        data: { email: 42 },
      }),
    ).rejects.toMatchObject({ kind: 'invalid_input', path: 'email' });
    await expect(
      sendEvent(world, {
        pack: 'slack',
        eventType: 'message',
        to: first.url,
        secret,
        data: { text: '' },
      }),
    ).rejects.toMatchObject({ path: 'text' });
    await sendEvent(world, {
      pack: 'stripe',
      eventType: 'customer.created',
      to: second.url,
      secret,
    });
    await sendEvent(world, { pack: 'slack', eventType: 'message', to: second.url, secret });
    expect(first.requests).toHaveLength(0);
    expect(second.requests).toHaveLength(2);
    expect(
      (await world.twin('slack').list('event_subscription')).map((e) => e.fields.enabled),
    ).toEqual([false, false]);
    await world.close();
  });

  it('sends from an on-disk world: the secret lives in the root secret store, never in the log', async () => {
    const root = mkdtempSync(join(tmpdir(), 'twinworld-send-'));
    try {
      const r = await receiver();
      const secret = secrets.slack();
      const world = openWorld({ root });
      const result = await sendEvent(world, {
        pack: 'slack',
        eventType: 'message',
        to: r.url,
        secret,
        data: { text: 'from disk' },
      });
      expect(result).toMatchObject({ outcome: 'succeeded', status: 200 });
      const log = (await collect(world.twin('slack').exportLines())).join('\n');
      await world.close();
      expect(log).not.toContain(secret);
      const again = openWorld({ root });
      expect(await again.secrets.resolve(`slack/${result.endpointId}`, Date.now())).toEqual([
        secret,
      ]);
      await again.close();
      expect(JSON.parse(r.requests[0]!.body).event.text).toBe('from disk');
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('takes a pack of your own, e.g. a Standard Webhooks sender made with the factory', async () => {
    const r = await receiver();
    const pack = createStandardWebhooksPack({ name: 'billing', eventTypes: ['invoice.finalized'] });
    const world = openWorld({ root: ':memory:' });
    const secret = secrets.standardWebhooks();
    const result = await sendEvent(world, {
      pack,
      eventType: 'invoice.finalized',
      to: r.url,
      secret,
      data: { id: 'in_1' },
    });
    expect(result).toMatchObject({ pack: 'billing', outcome: 'succeeded' });
    expect(await standardWebhooksVerifier.verify(r.requests[0]!, secret)).toEqual({
      type: 'invoice.finalized',
      timestamp: expect.any(String),
      data: { id: 'in_1' },
    });
    expect(listSendable([pack])).toEqual([
      {
        pack: 'billing',
        eventType: 'invoice.finalized',
        description: 'billing: a Standard Webhooks sender',
      },
    ]);
    await world.close();
  });

  it('a seeded virtual world renders the same bodies every time: ids and times come from the world', async () => {
    const r = await receiver();
    const bodies: string[][] = [];
    const sent: number[] = [];
    for (let run = 0; run < 2; run++) {
      const world = openWorld({
        root: ':memory:',
        clock: new VirtualClock('2026-02-02T02:02:02Z'),
        seed: 'same',
      });
      for (const s of listSendable())
        await sendEvent(world, {
          pack: s.pack,
          eventType: s.eventType,
          to: r.url,
          secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
        });
      const records = (
        await Promise.all(builtInPacks.map((p) => world.twin(p.name).list(p.events.recordType)))
      ).flat();
      bodies.push(records.map((d) => String(d.fields.body)));
      // One attempted delivery per send; a write may record others too (a new hook's ping, release created + published).
      sent.push(records.filter((d) => Number(d.fields.attempts) > 0).length);
      await world.close();
    }
    expect(sent).toEqual([listSendable().length, listSendable().length]);
    expect(bodies[1]).toEqual(bodies[0]);
  });
});
