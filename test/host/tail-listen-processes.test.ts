// `twinworld tail`, `twinworld listen --forward-to` and `twinworld redeliver --to` as a user runs
// them: real child processes on one SQLite root, a loopback app, Stripe's own library verifying
// every packet with the secret `listen` printed, SIGINT to stop, and the refusals.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../support/backends.js';
import { start, tw } from '../support/cli-process.js';
import { startReceiver, type Receiver } from '../support/receiver.js';

const stripe = new Stripe('sk_test_twinworld');
let dir: string;
let app: Receiver;
let other: Receiver;

beforeAll(async () => {
  dir = tempDir('twinworld-tail-listen-');
  app = await startReceiver(() => 200);
  other = await startReceiver(() => 200);
});
afterAll(async () => {
  await app.close();
  await other.close();
  rmSync(dir, { recursive: true, force: true });
});

async function until(check: () => boolean, what: string, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out: ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const lines = (text: string) =>
  text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe('listen --forward-to and tail, as processes', () => {
  it('forwards every event once, verifiable with the printed secret; tail sees it all; SIGINT leaves no endpoint enabled', async () => {
    const root = join(dir, 'loop');
    const listen = start([
      'listen',
      'stripe',
      '--forward-to',
      `${app.url}/webhook`,
      '--json',
      '--poll',
      '50',
      '--root',
      root,
    ]);
    const ready = JSON.parse((await listen.waitFor(/^\{"ready".*$/m))[0]) as {
      endpoint: string;
      secret: string;
    };
    expect(ready.secret).toMatch(/^whsec_/);
    // Started once the root exists (tail only reads, as every read command, and refuses a missing root).
    const tail = start(['tail', '--json', '--poll', '50', '--root', root]);
    await until(() => tail.stderr().includes('tailing'), `tail started: ${tail.stderr()}`);

    const queued = await tw([
      'trigger',
      'stripe',
      'customer.created',
      '--count',
      '3',
      '--json',
      '--root',
      root,
    ]);
    expect(queued.stderr).toBe('');
    const ids = (JSON.parse(queued.stdout) as { queued: { id: string }[] }).queued.map((q) => q.id);
    expect(ids).toHaveLength(3);

    await until(
      () => lines(listen.stdout()).filter((l) => 'attempt' in l).length === 3,
      'three attempt lines',
    );
    expect(app.requests).toHaveLength(3);
    const events = app.requests.map((r) =>
      stripe.webhooks.constructEvent(r.body, String(r.headers['stripe-signature']), ready.secret),
    );
    expect(new Set(events.map((e) => e.id)).size).toBe(3);
    expect(events.every((e) => e.type === 'customer.created')).toBe(true);
    const attempts = lines(listen.stdout()).filter((l) => 'attempt' in l);
    expect(attempts.map((a) => a.status)).toEqual([200, 200, 200]);
    expect(new Set(attempts.map((a) => a.eventId))).toEqual(new Set(events.map((e) => e.id)));

    await until(
      () =>
        lines(tail.stdout()).filter((l) => l.kind === 'attempt' && l.status === 200).length === 3,
      'tail saw three attempts',
    );
    const seen = lines(tail.stdout());
    for (const id of ids)
      expect(
        seen.some((l) => l.kind === 'delivery' && l.subjectId === id && l.state === 'queued'),
      ).toBe(true);
    expect(seen.some((l) => l.kind === 'entry' && l.operation === 'customer.create')).toBe(true);

    expect(await listen.interrupt()).toBe(0);
    expect(lines(listen.stdout()).at(-1)).toEqual({ retired: true, endpoint: ready.endpoint });
    const listed = JSON.parse(
      (await tw(['endpoints', 'list', '--json', '--root', root])).stdout,
    ) as {
      enabled: boolean;
    }[];
    expect(listed.length).toBe(1);
    expect(listed.filter((e) => e.enabled)).toEqual([]);
    // The history stays: the three deliveries are still there, succeeded.
    const deliveries = JSON.parse((await tw(['deliveries', '--json', '--root', root])).stdout) as {
      state: string;
    }[];
    expect(deliveries.map((d) => d.state)).toEqual(['succeeded', 'succeeded', 'succeeded']);
    await until(
      () =>
        lines(tail.stdout()).some(
          (l) =>
            l.operation === 'webhook_endpoint.update' ||
            String(l.operation).startsWith('webhook_endpoint.'),
        ),
      'tail saw the retirement',
    );
    expect(await tail.interrupt()).toBe(0);

    // redeliver --to: one attempt to another URL, kept on the attempt; the record keeps its own.
    const r = await tw([
      'redeliver',
      ids[0]!,
      '--to',
      `${other.url}/elsewhere`,
      '--json',
      '--root',
      root,
    ]);
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toMatchObject({ number: 2, outcome: 'succeeded', status: 200 });
    expect(other.requests.map((q) => q.url)).toEqual(['/elsewhere']);
    const a = JSON.parse((await tw(['attempts', ids[0]!, '--json', '--root', root])).stdout) as {
      url?: string;
    }[];
    expect(a.map((x) => x.url)).toEqual([undefined, `${other.url}/elsewhere`]);
    expect(app.requests).toHaveLength(3);
  });

  it('refuses what it cannot do, and appends nothing', async () => {
    const root = join(dir, 'refusals');
    expect(
      (await tw(['endpoints', 'add', 'stripe', '--url', `${app.url}/x`, '--root', root])).status,
    ).toBe(0);
    const head = (await tw(['log', 'stripe', '--json', '--root', root])).stdout;
    const noTo = await tw(['listen', 'stripe', '--root', root]);
    expect(noTo.status).toBe(2);
    expect(noTo.stderr).toContain('listen needs --forward-to URL');
    const badUrl = await tw([
      'listen',
      'stripe',
      '--forward-to',
      'ftp://127.0.0.1/x',
      '--root',
      root,
    ]);
    expect(badUrl.status).toBe(2);
    expect(badUrl.stderr).toMatch(/^error USAGE: --forward-to must be an http\(s\) URL/);
    const badPack = await tw(['listen', 'nope', '--forward-to', app.url, '--root', root]);
    expect(badPack.stderr).toMatch(/^error UNKNOWN_PACK: unknown pack "nope"/);
    const badTo = await tw(['redeliver', 'dlv_x', '--to', 'not a url', '--root', root]);
    expect(badTo.status).toBe(2);
    expect(badTo.stderr).toMatch(/^error USAGE: --to must be an http\(s\) URL/);
    const unknown = await tw(['redeliver', 'dlv_x', '--to', app.url, '--root', root]);
    expect(unknown.stderr).toMatch(/^error UNKNOWN_DELIVERY: no delivery dlv_x/);
    const badTwin = await tw(['tail', '--twin', '../x', '--root', root]);
    expect(badTwin.status).toBe(1);
    // A twin the store does not hold yet is waited for, but said so: a typo is not silence.
    const typo = start(['tail', '--twin', 'strpe,stripe', '--root', root]);
    await until(() => typo.stderr().includes('no twin'), `tail noted the typo: ${typo.stderr()}`);
    expect(typo.stderr()).toMatch(
      /^no twin "strpe" on .* yet: its entries show once it appears \(twins now: .*stripe.*\)$/m,
    );
    expect(typo.stderr()).not.toContain('no twin "stripe"');
    expect(await typo.interrupt()).toBe(0);
    expect((await tw(['log', 'stripe', '--json', '--root', root])).stdout).toBe(head);
  });
});
