// The delivery commands end to end against a real receiver on 127.0.0.1: `send` signs a packet
// the vendor's own library verifies, then deliveries, attempts, redeliver and recover read and
// act on what it recorded.
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Stripe from 'stripe';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { tempDir } from '../support/backends.js';

const BIN = resolve('dist/src/cli/main.js');
const SECRET = 'whsec_cli_test_secret_0123456789';
const stripe = new Stripe('sk_test_x');
let receiver: Receiver;
let root: string;

function tw(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
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

let answer = 200;
beforeAll(async () => {
  root = tempDir('twinworld-cli-delivery-');
  receiver = await startReceiver(() => answer);
});
afterAll(async () => {
  await receiver.close();
  rmSync(root, { recursive: true, force: true });
});

describe('delivery commands', () => {
  let deliveryId = '';

  it('send delivers a Stripe event that stripe.webhooks.constructEvent accepts', async () => {
    const r = await tw([
      'send',
      'stripe',
      'customer.created',
      '--to',
      `${receiver.url}/stripe`,
      '--secret',
      SECRET,
      '--data',
      '{"email":"ada@example.com"}',
      '--json',
    ]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const result = JSON.parse(r.stdout);
    expect(result).toMatchObject({
      pack: 'stripe',
      eventType: 'customer.created',
      outcome: 'succeeded',
      status: 200,
      attempts: 1,
    });
    deliveryId = result.deliveryId;
    const req = receiver.requests.at(-1)!;
    const event = stripe.webhooks.constructEvent(
      req.body,
      String(req.headers['stripe-signature']),
      SECRET,
    );
    expect(event).toMatchObject({
      id: result.eventId,
      type: 'customer.created',
      object: 'event',
      livemode: false,
    });
    expect((event.data.object as { email: string }).email).toBe('ada@example.com');
  });

  it("endpoints list leaves out send's retired one-shot endpoint unless --all; --all is list's only", async () => {
    const added = await tw(['endpoints', 'add', 'stripe', '--url', `${receiver.url}/kept`]);
    expect(added.status, added.stderr).toBe(0);
    const kept = /\S+ \S+ (\S+) → /.exec(added.stdout)![1]!;
    const listed = await tw(['endpoints', 'list']);
    expect(listed.stdout).toContain(kept);
    expect(listed.stdout).toMatch(
      /\/kept\n1 one-shot endpoint of `twinworld send` not shown; --all lists it\n$/,
    );
    const json = JSON.parse((await tw(['endpoints', 'list', '--json'])).stdout) as {
      id: string;
      send: boolean;
    }[];
    expect(json.map((e) => [e.id, e.send])).toEqual([[kept, false]]);
    const all = JSON.parse((await tw(['endpoints', 'list', '--all', '--json'])).stdout) as {
      id: string;
      send: boolean;
      enabled: boolean;
      url: string;
    }[];
    expect(all).toHaveLength(2);
    expect(all.find((e) => e.send)).toMatchObject({
      enabled: false,
      url: `${receiver.url}/stripe`,
    });
    expect((await tw(['endpoints', 'list', '--all'])).stdout).not.toContain('not shown');
    const misplaced = await tw(['endpoints', 'disable', kept, '--all']);
    expect(misplaced.status).toBe(2);
    expect(misplaced.stderr).toMatch(/--all is only for endpoints list/);
    expect((await tw(['endpoints', 'remove', kept])).status).toBe(0);
    expect((await tw(['endpoints', 'list'])).stdout).toBe(
      'no endpoints (1 one-shot endpoint of `twinworld send` not shown; --all lists it)\n',
    );
  });

  it('deliveries lists it, filters by state, and refuses an unknown state', async () => {
    const table = await tw(['deliveries']);
    expect(table.stdout).toMatch(
      new RegExp(
        `${deliveryId}\\s+customer\\.created\\s+webhook_endpoint/we_\\w+\\s+succeeded\\s+1\\s+200`,
      ),
    );
    expect(JSON.parse((await tw(['deliveries', '--state', 'failed', '--json'])).stdout)).toEqual(
      [],
    );
    const bad = await tw(['deliveries', '--state', 'lost']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/^error USAGE: --state must be one of queued, sending/);
  });

  it('redeliver makes a numbered, re-signed second attempt; attempts shows both', async () => {
    answer = 503;
    const r = await tw(['redeliver', deliveryId, '--json']);
    answer = 200;
    expect(r.status).toBe(1);
    expect(JSON.parse(r.stdout)).toMatchObject({
      number: 2,
      kind: 'redeliver',
      outcome: 'failed',
      status: 503,
    });
    const attempts = JSON.parse((await tw(['attempts', deliveryId, '--json'])).stdout);
    expect(attempts.map((a: { number: number; state: string }) => [a.number, a.state])).toEqual([
      [1, 'succeeded'],
      [2, 'failed'],
    ]);
    expect(attempts[1].headers['Stripe-Signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    // The table names the headers each attempt sent, and their values follow it.
    const table = (await tw(['attempts', deliveryId])).stdout;
    expect(table).toMatch(/^#\s+KIND\s+STATE\s+STATUS\s+REASON\s+STARTED\s+FINISHED\s+HEADERS\n/);
    expect(table).toMatch(/\n2\s+redeliver\s+failed\s+503\s+.*Stripe-Signature/);
    expect(table).toContain(`\nattempt 2 sent:\n`);
    expect(table).toContain(`  Stripe-Signature: ${attempts[1].headers['Stripe-Signature']}\n`);
    // accepted_at of the first success stays
    const [row] = JSON.parse((await tw(['deliveries', '--json'])).stdout);
    expect(row.acceptedAt).not.toBeNull();
  });

  it('attempts and redeliver refuse an unknown delivery', async () => {
    const r = await tw(['attempts', 'dlv_missing']);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/UNKNOWN_DELIVERY/);
  });

  it('recover has nothing to do on a settled world', async () => {
    const r = await tw(['recover', '--json']);
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      markedUnknown: [],
      dispatched: [],
      retried: [],
      scheduled: [],
      inFlight: [],
      scheduledRetries: 0,
    });
  });

  it('send --list names every pack; an unknown event type is refused with the valid ones', async () => {
    const list = JSON.parse((await tw(['send', '--list', '--json'])).stdout) as { pack: string }[];
    expect(new Set(list.map((s) => s.pack))).toEqual(
      new Set(['stripe', 'github', 'slack', 'standard-webhooks']),
    );
    const bad = await tw([
      'send',
      'stripe',
      'customer.exploded',
      '--to',
      receiver.url,
      '--secret',
      SECRET,
    ]);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(/UNKNOWN_EVENT_TYPE.*customer\.created/);
    const usage = await tw(['send', 'stripe', 'customer.created']);
    expect(usage.status).toBe(2);
  });

  it('no secret in the exported log', async () => {
    const r = await tw(['export', 'stripe']);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('customer.created');
    expect(r.stdout).not.toContain(SECRET);
  });
});
