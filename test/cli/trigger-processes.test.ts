// `endpoints add` and `trigger` as a user runs them: the built binary in child processes against
// one world root and a real receiver on 127.0.0.1. A trigger without --wait only queues (the
// receiver hears nothing); with --wait it sends, and every packet verifies with the vendor's own
// library against the secret `endpoints add` printed.
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { verify as octokitVerify } from '@octokit/webhooks-methods';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../support/backends.js';
import { startReceiver, type Receiver } from '../support/receiver.js';

const BIN = resolve('dist/src/cli/main.js');
const stripe = new Stripe('sk_test_twinworld');
let dir: string;
let receiver: Receiver;

function tw(
  root: string,
  args: string[],
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [BIN, ...args, '--root', root], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    child.on('exit', (status) => done({ status, stdout, stderr }));
  });
}

beforeAll(async () => {
  dir = tempDir('twinworld-trigger-processes-');
  receiver = await startReceiver(() => 200);
});
afterAll(async () => {
  await receiver.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('endpoints add, then trigger, in separate processes', () => {
  it('stripe customer.created --count 3 --wait: three requests that stripe.webhooks.constructEvent accepts', async () => {
    const root = join(dir, 'stripe');
    const path = '/stripe';
    const added = await tw(root, [
      'endpoints',
      'add',
      'stripe',
      '--url',
      `${receiver.url}${path}`,
      '--json',
    ]);
    expect(added.stderr).toBe('');
    expect(added.status).toBe(0);
    const endpoint = JSON.parse(added.stdout) as { id: string; secret: string };
    expect(endpoint.secret).toMatch(/^whsec_/);

    const r = await tw(root, [
      'trigger',
      'stripe',
      'customer.created',
      '--count',
      '3',
      '--wait',
      '--json',
    ]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const out = JSON.parse(r.stdout) as {
      queued: { id: string }[];
      outcomes: {
        deliveryId: string;
        outcome: string;
        status: number;
        state: string;
        sentHere: boolean;
      }[];
    };
    expect(out.queued).toHaveLength(3);
    expect(out.outcomes.map((o) => [o.outcome, o.status, o.state, o.sentHere])).toEqual([
      ['succeeded', 200, 'succeeded', true],
      ['succeeded', 200, 'succeeded', true],
      ['succeeded', 200, 'succeeded', true],
    ]);
    const got = receiver.requests.filter((q) => q.url === path);
    expect(got).toHaveLength(3);
    const events = got.map((q) =>
      stripe.webhooks.constructEvent(
        q.body,
        String(q.headers['stripe-signature']),
        endpoint.secret,
      ),
    );
    expect(events.map((e) => e.type)).toEqual([
      'customer.created',
      'customer.created',
      'customer.created',
    ]);
    // Three customers, not one sent three times.
    expect(new Set(events.map((e) => (e.data.object as { id: string }).id)).size).toBe(3);
    // A wrong secret is refused by the same library: the check can fail.
    expect(() =>
      stripe.webhooks.constructEvent(
        got[0]!.body,
        String(got[0]!.headers['stripe-signature']),
        'whsec_wrong',
      ),
    ).toThrow();

    const listed = JSON.parse((await tw(root, ['deliveries', '--json'])).stdout) as {
      id: string;
      state: string;
    }[];
    expect(listed.map((d) => [d.id, d.state]).sort()).toEqual(
      out.queued.map((q) => [q.id, 'succeeded']).sort(),
    );
  });

  it('without --wait it only queues: the receiver hears nothing until the deliveries are sent', async () => {
    const root = join(dir, 'queue-only');
    const path = '/queued';
    const added = await tw(root, [
      'endpoints',
      'add',
      'stripe',
      '--url',
      `${receiver.url}${path}`,
      '--secret',
      'whsec_mine_0123456789',
      '--json',
    ]);
    expect(JSON.parse(added.stdout).secret).toBe('whsec_mine_0123456789');
    const r = await tw(root, ['trigger', 'stripe', 'payment_intent.succeeded', '--json']);
    expect(r.status).toBe(0);
    const { queued } = JSON.parse(r.stdout) as { queued: { id: string; eventType: string }[] };
    expect(queued.map((q) => q.eventType)).toEqual([
      'customer.created',
      'payment_intent.created',
      'charge.succeeded',
      'payment_intent.succeeded',
    ]);
    expect(receiver.requests.filter((q) => q.url === path)).toEqual([]);
    const pending = JSON.parse(
      (await tw(root, ['deliveries', '--state', 'queued', '--json'])).stdout,
    ) as { id: string }[];
    expect(pending.map((d) => d.id).sort()).toEqual(queued.map((q) => q.id).sort());
    // Another process sends what is queued (recover stands in for the worker here).
    expect((await tw(root, ['recover'])).status).toBe(0);
    const got = receiver.requests.filter((q) => q.url === path);
    expect(got).toHaveLength(4);
    for (const q of got)
      stripe.webhooks.constructEvent(
        q.body,
        String(q.headers['stripe-signature']),
        'whsec_mine_0123456789',
      );
  });

  it('github: the hook is pinged on add; trigger push --wait sends a push octokit verifies', async () => {
    const root = join(dir, 'github');
    const path = '/github';
    expect((await tw(root, ['trigger', 'github', 'ping'])).status).toBe(0);
    const added = await tw(root, [
      'endpoints',
      'add',
      'github',
      '--url',
      `${receiver.url}${path}`,
      '--repo',
      'octo-org/hello-world',
      '--events',
      'push',
      '--json',
    ]);
    expect(added.status).toBe(0);
    const hook = JSON.parse(added.stdout) as { secret: string; queued: { eventType: string }[] };
    expect(hook.queued.map((q) => q.eventType)).toEqual(['ping']);
    const r = await tw(root, [
      'trigger',
      'github',
      'push',
      '--data',
      '{"messages":["Fix the parser"]}',
      '--wait',
    ]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(
      /^github push: 1 delivery queued\nDELIVERY\s+EVENT\s+ENDPOINT\s+OUTCOME\s+STATUS\s+REASON\ndlv_\w+\s+push\s+repository_hook\/\d+\s+succeeded\s+200\s+http_status\n$/,
    );
    const [push] = receiver.requests.filter((q) => q.url === path);
    expect(push!.headers['x-github-event']).toBe('push');
    expect(
      await octokitVerify(hook.secret, push!.body, String(push!.headers['x-hub-signature-256'])),
    ).toBe(true);
    expect(JSON.parse(push!.body).head_commit.message).toBe('Fix the parser');
  });
});
