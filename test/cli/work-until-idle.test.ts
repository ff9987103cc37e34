// `work --until-idle` means idle now, through the CLI in-process against a real receiver: a retry
// scheduled later does not hold it (it says when it comes), removing or disabling the endpoint
// cancels the waiting retry once, the stop line counts only claims won, and `send` says its
// one-shot endpoint takes no retries.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stripePack } from '../../packs/stripe/pack.js';
import { openWorld, registerPack } from '../../src/index.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { tempDir } from '../support/backends.js';
import { cli } from './in-process.js';

const dir = tempDir('twinworld-work-idle-');
let failing: Receiver;
beforeAll(async () => {
  failing = await startReceiver(() => 500);
});
afterAll(async () => {
  await failing.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Stopped {
  event: 'stopped';
  claimed: number;
  retrying: number;
  later: { kind: string; at: string }[];
}

function lines(stdout: string): Record<string, unknown>[] {
  return stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

interface Row {
  id: string;
  state: string;
  nextAttemptAt: string | null;
}

async function deliveries(root: string): Promise<Row[]> {
  const r = await cli(['deliveries', '--root', root, '--json']);
  expect(r.status, r.stderr).toBe(0);
  return r.json<Row[]>();
}

async function cancelEntries(root: string, pack: string, id: string): Promise<unknown[]> {
  const r = await cli(['log', pack, '--root', root, '--json']);
  expect(r.status, r.stderr).toBe(0);
  return r
    .json<{ operation: string; subjectId: string; fields?: Record<string, unknown> }[]>()
    .filter((e) => e.subjectId === id && e.operation.endsWith('.cancel'))
    .map((e) => e.fields);
}

describe.each([
  { action: 'remove', reason: 'endpoint_removed' },
  { action: 'disable', reason: 'endpoint_disabled' },
])('a Stripe retry 15 minutes out, then $action the endpoint', ({ action, reason }) => {
  const root = join(dir, action);
  let endpoint = '';

  it('work --until-idle sends, leaves the retry for later and says when it comes', async () => {
    const added = await cli(['endpoints', 'add', 'stripe', '--url', failing.url, '--root', root]);
    expect(added.status, added.stderr).toBe(0);
    endpoint = /\S+ \S+ (\S+) → /.exec(added.stdout)![1]!;
    expect((await cli(['trigger', 'stripe', 'customer.created', '--root', root])).status).toBe(0);

    const before = failing.requests.length;
    const work = await cli(['work', '--until-idle', '--root', root, '--json']);
    expect(work.status, work.stderr).toBe(0);
    expect(failing.requests.length - before).toBe(1);
    const out = lines(work.stdout);
    expect(out.filter((l) => l.event === 'done')).toMatchObject([{ outcome: 'retrying' }]);
    const [row] = await deliveries(root);
    expect(row).toMatchObject({ state: 'retrying' });
    const stopped = out.at(-1) as unknown as Stopped;
    expect(stopped).toMatchObject({ event: 'stopped', claimed: 1, retrying: 1 });
    // the retry is scheduled later, on the world clock, and the worker did not wait for it
    expect(stopped.later).toEqual([{ kind: 'delivery:stripe', at: row!.nextAttemptAt }]);
    expect(Date.parse(row!.nextAttemptAt!)).toBeGreaterThan(Date.now() + 10 * 60_000);

    const text = await cli(['work', '--until-idle', '--root', root]);
    expect(text.stdout).toContain(
      `idle: stopped — claimed 0  sent 0  failed 0  retrying 0  unknown 0\nscheduled later: delivery:stripe at ${row!.nextAttemptAt}\n`,
    );
    // The failed attempt moved the endpoint's health (docs/endpoint-health.md); `list` shows it.
    const listed = await cli(['endpoints', 'list', '--root', root, '--json']);
    const [first] = listed.json<{ health: unknown; recent: unknown }[]>();
    expect(first!.health).toMatchObject({
      state: 'degraded',
      failures: 1,
      failingSince: expect.any(String),
    });
    // …and its recent success: none of its one finished attempt.
    expect(first!.recent).toEqual({ attempts: 1, succeeded: 0, rate: 0 });
    expect((await cli(['endpoints', 'list', '--root', root])).stdout).toMatch(
      /enabled\s+degraded \(1 failed\)\s+failing since \S+\s+0% of 1\s/,
    );
  });

  it(`${action} cancels the waiting retry (${reason}), once; nothing is left scheduled`, async () => {
    const r = await cli(['endpoints', action, endpoint, '--pack', 'stripe', '--root', root]);
    expect(r.status, r.stderr).toBe(0);
    const [row] = await deliveries(root);
    expect(row).toMatchObject({ state: 'cancelled', nextAttemptAt: null });
    const cancels = await cancelEntries(root, 'stripe', row!.id);
    expect(cancels).toEqual([{ state: 'cancelled', reason, nextAttemptAt: null, dueAt: null }]);
    // A second disable, or a remove after a disable, cancels nothing again.
    if (action === 'disable') {
      expect((await cli(['endpoints', 'disable', endpoint, '--root', root])).status).toBe(0);
      expect((await cli(['endpoints', 'remove', endpoint, '--root', root])).status).toBe(0);
    }
    expect(await cancelEntries(root, 'stripe', row!.id)).toHaveLength(1);

    const work = await cli(['work', '--until-idle', '--root', root]);
    expect(work.status, work.stderr).toBe(0);
    expect(work.stdout).toMatch(/idle: stopped — claimed 0 .*\nnothing scheduled later\n$/);
  });
});

describe('the stop line counts claims won', () => {
  it('a due delivery that claims nothing (its packet is incomplete: refused) is not counted', async () => {
    const root = join(dir, 'claims');
    // An endpoint written without a url, through the library: its deliveries are due, and the
    // claim refuses them (incomplete_packet: url) — the worker ran them but won no claim.
    const world = openWorld({ root });
    const twin = registerPack(world, stripePack);
    await twin.applyWrite({
      operation: 'webhook_endpoint.create',
      subjectType: 'webhook_endpoint',
      subjectId: 'we_nourl',
      fields: { secret_ref: 'we_nourl', enabled_events: ['*'], status: 'enabled' },
    });
    await world.close();
    expect((await cli(['trigger', 'stripe', 'customer.created', '--root', root])).status).toBe(0);
    const work = await cli(['work', '--until-idle', '--root', root, '--json']);
    expect(work.status, work.stderr).toBe(0);
    expect(lines(work.stdout).at(-1)).toMatchObject({ event: 'stopped', claimed: 0, failed: 0 });
    expect(await deliveries(root)).toMatchObject([{ state: 'refused' }]);
  });
});

describe('send', () => {
  it('says its one-shot endpoint takes no retries instead of printing a retry time that never comes', async () => {
    const root = join(dir, 'send');
    const r = await cli([
      'send',
      'stripe',
      'customer.created',
      '--to',
      failing.url,
      '--secret',
      'whsec_dGVzdHNlY3JldHRlc3RzZWNyZXR0ZXN0c2VjcmV0',
      '--root',
      root,
    ]);
    expect(r.status).toBe(1);
    expect(r.stdout).not.toMatch(/retry {5}\d/);
    expect(r.stdout).toContain("retries   none: a send's endpoint is one-shot");
    const json = await cli([
      'send',
      'stripe',
      'customer.created',
      '--to',
      failing.url,
      '--secret',
      'whsec_dGVzdHNlY3JldHRlc3RzZWNyZXR0ZXN0c2VjcmV0',
      '--root',
      root,
      '--json',
    ]);
    expect(json.json()).toMatchObject({ outcome: 'failed', state: 'cancelled' });
    expect(json.json()).not.toHaveProperty('retryAt');
    const work = await cli(['work', '--until-idle', '--root', root]);
    expect(work.stdout).toMatch(/nothing scheduled later\n$/);
  });
});
