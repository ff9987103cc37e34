// The walk API: a seeded world on a virtual clock that settles after every step, stable names for
// real servers, traces, exports in world-clock order, reports with wall time kept apart.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { stripe } from '../../packs/index.js';
import { isTwinError, replayLines } from '../../src/index.js';
import { checkFixture, formatReport, openWalk, WalkClock } from '../../src/walk/index.js';
import { startReceiver } from '../support/receiver.js';

const SECRET = 'whsec_walk_api_test_secret_000111';

async function shop(seed: string) {
  const walk = await openWalk({ seed, start: '2026-06-01T12:00:00Z', packs: [stripe.pack] });
  const twin = walk.twin('stripe');
  const app = walk.receiver('app', { script: [500] });
  await stripe.createWebhookEndpoint(twin, { url: app.url, enabled_events: ['*'], secret: SECRET });
  await walk.traced(async () => {
    const c = await stripe.createCustomer(twin, { email: 'ada@example.com' });
    await stripe.updateCustomer(twin, c.id, { name: 'Ada' });
  });
  await walk.runUntilIdle();
  return walk;
}

describe('walks', () => {
  it('the same walk twice writes byte-identical logs, hashes and reports', async () => {
    const [a, b] = [await shop('same'), await shop('same')];
    expect((await a.exportLog()).join('\n')).toBe((await b.exportLog()).join('\n'));
    expect(await a.hashes()).toEqual(await b.hashes());
    const { wall: _a, ...ra } = await a.report();
    const { wall: _b, ...rb } = await b.report();
    expect(ra).toEqual(rb);
    const c = await shop('other');
    expect(await c.hashes()).not.toEqual(await a.hashes());
    await Promise.all([a.close(), b.close(), c.close()]);
  });

  it('settles after each step: a retry and what it causes are done before the next step runs', async () => {
    const walk = await shop('steps');
    const [d] = (await walk.report()).deliveries;
    expect(d!.attempts.map((a) => a.state)).toEqual(['failed', 'succeeded']);
    expect(walk.clock).toBeInstanceOf(WalkClock);
    expect(walk.clock.pending()).toBe(0);
    expect(walk.errors).toEqual([]);
    await walk.close();
  });

  it('runs tickers as the clock passes them, in order with scheduled tasks', async () => {
    const walk = await openWalk({ seed: 'ticks', start: '2026-06-01T00:00:00Z' });
    const seen: string[] = [];
    let next: number | undefined = Date.parse('2026-06-01T00:30:00Z');
    walk.addTicker({
      name: 'half-hourly',
      nextAt: () => next,
      tick: async (now) =>
        void (
          seen.push(`tick ${new Date(now).toISOString().slice(11, 16)}`),
          (next = now + 30 * 60_000)
        ),
    });
    walk.clock.schedule(Date.parse('2026-06-01T00:30:00Z'), () => void seen.push('task 00:30'));
    walk.clock.schedule(Date.parse('2026-06-01T00:45:00Z'), () => void seen.push('task 00:45'));
    await walk.advance(90 * 60_000);
    expect(seen).toEqual(['task 00:30', 'tick 00:30', 'task 00:45', 'tick 01:00', 'tick 01:30']);
    expect(walk.clock.now()).toBe(Date.parse('2026-06-01T01:30:00Z'));
    await walk.close();
  });

  it('carries the walk trace on every attempt as a new hop of the same trace', async () => {
    const walk = await shop('trace');
    const deliveries = (await walk.report()).deliveries;
    const traceIds = new Set(deliveries.map((d) => d.traceId));
    expect(traceIds.size).toBe(1);
    const [traceId] = traceIds;
    expect(traceId).toMatch(/^[0-9a-f]{32}$/);
    const hops = deliveries.flatMap((d) => d.attempts.map((a) => a.traceparent));
    expect(hops.every((h) => h?.split('-')[1] === traceId)).toBe(true);
    expect(new Set(hops).size).toBe(hops.length);
    await walk.close();
  });

  it('exports every twin in world-clock order, replaying to the same hashes; saves a fixture that checks out', async () => {
    const walk = await shop('export');
    await walk.world.twin('notes').applyWrite({
      operation: 'note.add',
      subjectType: 'note',
      subjectId: 'n1',
      fields: { text: 'hi' },
    });
    const lines = await walk.exportLog();
    const times = lines.map((l) => JSON.parse(l).recordedAt as string);
    expect([...times].sort()).toEqual(times);
    expect((await replayLines(lines)).hashes).toEqual(await walk.hashes());
    expect(Object.keys(await walk.hashes()).sort()).toEqual(['notes', 'stripe']);
    const dir = mkdtempSync(join(tmpdir(), 'walk-fixture-'));
    try {
      await walk.saveFixture('my-walk', { dir });
      expect(readFileSync(join(dir, 'my-walk.jsonl'), 'utf8')).toBe(`${lines.join('\n')}\n`);
      const check = await checkFixture(dir, 'my-walk');
      expect(check).toMatchObject({ hashesMatch: true, violations: [], entries: lines.length });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    await walk.close();
  });

  it('keeps wall-clock times beside the log: in the report, never in an entry', async () => {
    const walk = await shop('wall');
    const report = await walk.report();
    expect(Object.keys(report.wall.attemptMs)).toHaveLength(3);
    expect(report.wall.totalMs).toBeGreaterThan(0);
    const text = formatReport(report, { title: 'test walk' });
    expect(text).toContain('test walk — seed wall');
    expect(text).toContain('#2 retry');
    expect(text).toContain(report.hashes.stripe);
    expect((await walk.exportLog()).join('\n')).not.toMatch(/durationMs|wallMs/);
    await walk.close();
  });

  it('mounts a real server under a stable name: the log keeps the name, never the port', async () => {
    const server = await startReceiver(() => 204);
    const walk = await openWalk({ seed: 'mount', packs: [stripe.pack] });
    try {
      const base = walk.mount('app', server.url);
      expect(base).toBe('http://app.walk.invalid/');
      const twin = walk.twin('stripe');
      await stripe.createWebhookEndpoint(twin, {
        url: `${base}hooks/stripe`,
        enabled_events: ['*'],
        secret: SECRET,
      });
      await stripe.createCustomer(twin, {});
      await walk.settle();
      expect(server.requests.map((r) => r.url)).toEqual(['/hooks/stripe']);
      // Signed on the world clock (2026-01-01), which is the clock the walk's receivers check.
      expect(server.requests[0]!.headers['stripe-signature']).toMatch(/^t=1767225600,v1=/);
      expect((await walk.report()).deliveries[0]).toMatchObject({
        state: 'succeeded',
        attempts: [{ status: 204 }],
      });
      const port = new URL(server.url).port;
      expect((await walk.exportLog()).join('\n')).not.toContain(`:${port}`);
    } finally {
      await walk.close();
      await server.close();
    }
  });

  it('refuses bad arguments with typed errors', async () => {
    const expectCode = async (fn: () => unknown, code: string, path: string) => {
      try {
        await fn();
        expect.unreachable();
      } catch (error) {
        expect(isTwinError(error)).toBe(true);
        expect(error).toMatchObject({ code, path });
      }
    };
    await expectCode(() => openWalk({} as never), 'INVALID_ARGUMENT', 'seed');
    // Each was taken and seeded the walk with its text ("NaN", "1e+21"), which no --seed names.
    for (const seed of [NaN, Infinity, 1.5, -1, 1e21, 2 ** 53, '', true])
      await expectCode(() => openWalk({ seed } as never), 'INVALID_ARGUMENT', 'seed');
    await expect(openWalk({ seed: 1.5 })).rejects.toThrow(/the walk of the text "1\.5"/);
    // Epoch ms the log cannot name (a fraction), and a start of no type a time has.
    for (const start of [1.5, NaN, true, new Date(Number.NaN)])
      await expectCode(() => openWalk({ seed: 1, start } as never), 'INVALID_ARGUMENT', 'start');
    await expectCode(() => openWalk({ seed: 1, start: 'not a date' }), 'INVALID_ARGUMENT', 'start');
    // Date.parse would roll the 30th of February into March, and read a time without a zone in
    // this machine's zone: a walk that writes another log on another host. Both are refused.
    await expectCode(() => openWalk({ seed: 1, start: '2026-02-30' }), 'INVALID_ARGUMENT', 'start');
    await expect(openWalk({ seed: 1, start: '2026-03-02T09:00' })).rejects.toThrow(
      /has no time zone.*add Z for UTC \(2026-03-02T09:00:00Z\)/,
    );
    const dated = await openWalk({ seed: 1, start: '2026-03-02' });
    expect(dated.start).toBe('2026-03-02T00:00:00.000Z');
    await dated.close();
    const offset = await openWalk({ seed: 1, start: '2026-03-02T10:00+01:00' });
    expect(offset.start).toBe('2026-03-02T09:00:00.000Z');
    await offset.close();
    const fromDate = await openWalk({ seed: 1, start: new Date('2026-03-02T09:00:00.250Z') });
    expect(fromDate.start).toBe('2026-03-02T09:00:00.250Z');
    await fromDate.close();
    const text = await openWalk({ seed: '1.5', start: 0 });
    expect([text.seed, text.start]).toEqual(['1.5', '1970-01-01T00:00:00.000Z']);
    await text.close();
    const walk = await openWalk({ seed: 1 });
    await expectCode(() => walk.twin('stripe'), 'UNKNOWN_PACK', 'pack');
    await expectCode(() => walk.receiver('no spaces'), 'INVALID_ARGUMENT', 'name');
    walk.receiver('a');
    await expectCode(() => walk.receiver('a'), 'INVALID_ARGUMENT', 'name');
    await expectCode(
      () => walk.mount('Bad_Name', 'http://127.0.0.1:1'),
      'INVALID_ARGUMENT',
      'name',
    );
    await expectCode(() => walk.mount('ok', 'nope'), 'INVALID_ARGUMENT', 'target');
    await expectCode(() => walk.saveFixture('../escape'), 'INVALID_ARGUMENT', 'name');
    await expectCode(() => walk.advanceTo('2025-01-01T00:00:00Z'), 'INVALID_ARGUMENT', 'to');
    // The start refused a time without a zone; advanceTo read it in this machine's zone.
    await expectCode(() => walk.advanceTo('2026-06-01T09:00'), 'INVALID_ARGUMENT', 'to');
    // Past the last instant a Date holds: refused, and the world still writes at its own time.
    await expectCode(() => walk.advance(1e20), 'INVALID_ARGUMENT', 'ms');
    await expectCode(() => walk.advanceTo(1e20), 'INVALID_ARGUMENT', 'to');
    const entry = await walk.world
      .twin('notes')
      .applyWrite({ operation: 'note.add', subjectType: 'note', subjectId: 'n1', fields: {} });
    expect(entry.recordedAt).toBe(walk.start);
    await walk.close();
    // A horizon that is no number of ms used to return at once, leaving every retry unrun.
    const failing = await openWalk({ seed: 'bad-horizon', packs: [stripe.pack] });
    const app = failing.receiver('app', { script: [500] });
    await stripe.createWebhookEndpoint(failing.twin('stripe'), {
      url: app.url,
      enabled_events: ['*'],
    });
    await stripe.createCustomer(failing.twin('stripe'), { email: 'ada@example.com' });
    await failing.settle();
    const retryAt = await failing.clock.nextDue();
    expect(retryAt).toBeDefined();
    for (const horizon of ['1d', Number.NaN, -1])
      await expectCode(
        () => failing.runUntilIdle(horizon as number),
        'INVALID_ARGUMENT',
        'horizonMs',
      );
    expect(await failing.clock.nextDue()).toBe(retryAt);
    await failing.runUntilIdle(24 * 3600_000);
    expect(app.requests.map((r) => r.answer)).toEqual(['500', '200']);
    await failing.close();
  });

  it('a packet to a receiver that does not exist is a refused connection (failed: not sent), never sent anywhere', async () => {
    const walk = await openWalk({ seed: 'nobody', packs: [stripe.pack] });
    const twin = walk.twin('stripe');
    await stripe.createWebhookEndpoint(twin, {
      url: 'http://receivers.walk.invalid/nobody',
      enabled_events: ['*'],
      secret: SECRET,
    });
    await stripe.createCustomer(twin, {});
    await walk.settle();
    expect((await walk.report()).deliveries[0]!.attempts[0]).toMatchObject({
      state: 'failed',
      reason: 'not_sent',
    });
    await walk.close();
  });
});
