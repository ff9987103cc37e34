// Recovery and cross-process claims with real processes: a child is SIGKILLed mid-routine and
// recoverIncomplete re-runs exactly its processing and failed records from their stored
// envelopes, found by index; racing children run each key once.
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { openWorld } from '../../src/world/world.js';
import { VirtualClock } from '../../src/world/clock.js';
import { TriggerEngine } from '../../src/triggers/engine/engine.js';
import { InProcessRunner, RUN_TYPE } from '../../src/triggers/in-process-runner.js';
import { recordId, RECORD_TYPE } from '../../src/triggers/trigger-records.js';
import { tempDir } from '../support/backends.js';
import { envelope, expectRefusal, harness, T0 } from './support.js';

const roots: string[] = [];
afterAll(() => roots.forEach((r) => rmSync(r, { recursive: true, force: true })));

function freshRoot(): string {
  const root = tempDir('twinworld-triggers-');
  roots.push(root);
  return root;
}

async function prepare(root: string): Promise<void> {
  // Create the file before children race to create the schema.
  const world = openWorld({ root });
  new TriggerEngine({ world, runner: { run: async () => null } });
  world.twin('side');
  await world.close();
}

const COUNT = 30;

describe('recoverIncomplete after SIGKILL mid-routine', () => {
  it('re-runs the killed run and the failed ones, once, from their stored envelopes', async () => {
    const root = freshRoot();
    await prepare(root);
    const child = spawn(
      process.execPath,
      ['dist/test/support/trigger-crash-worker.js', 'crash', root, String(COUNT)],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const exited = new Promise((resolve) =>
      child.on('exit', (code, signal) => resolve(signal ?? code)),
    );
    const started = new Set<string>();
    let buffered = '';
    await new Promise<void>((resolve) => {
      child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
        const lines = (buffered + chunk).split('\n');
        buffered = lines.pop()!;
        for (const line of lines) if (line.startsWith('run ')) started.add(line.slice(4));
        if (started.size === COUNT) resolve();
      });
    });
    // Let the finishing and failing runs commit their finish, then kill while the rest hang.
    const world0 = openWorld({ root });
    const engine0 = new TriggerEngine({ world: world0, runner: { run: async () => null } });
    await vi.waitFor(
      async () => {
        const states = await Promise.all(
          Array.from(
            { length: COUNT },
            async (_, i) => (await engine0.record('acme', `order:${i}`))?.state,
          ),
        );
        expect(states.filter((s) => s === 'processing')).toHaveLength(COUNT / 3);
      },
      { timeout: 20_000 },
    );
    await world0.close();
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');

    const world = openWorld({ root });
    const ran: { key: string; attempt: number; input: unknown }[] = [];
    const runner = new InProcessRunner(world).register('work', async (input, ctx) => {
      ran.push({ key: ctx.runKey, attempt: ctx.attempt, input });
      return { recovered: true };
    });
    const engine = new TriggerEngine({ world, runner });
    engine.registerRoute({
      triggerId: 'order.placed',
      routineId: 'work',
      buildInput: (e) => e.payload,
    });
    await engine.start();
    const twin = world.twin('triggers');
    const list = vi.spyOn(twin, 'list');

    const hungKeys = Array.from({ length: COUNT }, (_, i) => i)
      .filter((i) => i % 3 === 2)
      .map((i) => `order:${i}`);
    // Not stale yet: a live process could still be running them, so they are left alone.
    const early = await engine.recoverIncomplete('acme', { staleAfterMs: 3_600_000 });
    expect(early.skipped.filter((s) => s.reason === 'not_stale')).toHaveLength(COUNT / 3);
    expect(early.recovered.filter((r) => r.from === 'processing')).toHaveLength(0);
    // …but the failed ones have no live owner and do run.
    expect(
      early.recovered
        .filter((r) => r.from === 'failed')
        .map((r) => r.dedupeKey)
        .sort(),
    ).toEqual(
      Array.from({ length: COUNT }, (_, i) => i)
        .filter((i) => i % 3 === 1)
        .map((i) => `order:${i}`)
        .sort(),
    );

    // Stale by start time, but their owner's leases have not lapsed yet: a run that may still be
    // running is never started twice, whatever staleAfterMs says.
    const held = await engine.recoverIncomplete('acme');
    expect(held.recovered).toEqual([]);
    expect(held.skipped.filter((s) => s.reason === 'not_stale')).toHaveLength(COUNT / 3);
    await vi.waitFor(
      async () => {
        const leases = await Promise.all(
          hungKeys.map(async (k) => (await engine.record('acme', k))!.leaseUntil!),
        );
        expect(leases.every((l) => Date.parse(l) <= Date.now())).toBe(true);
      },
      { timeout: 10_000, interval: 100 },
    );

    const report = await engine.recoverIncomplete('acme');
    expect(list).not.toHaveBeenCalled();
    const hung = Array.from({ length: COUNT }, (_, i) => i).filter((i) => i % 3 === 2);
    expect(report.recovered.map((r) => r.dedupeKey).sort()).toEqual(
      hung.map((i) => `order:${i}`).sort(),
    );
    for (const r of report.recovered)
      expect(r).toMatchObject({
        from: 'processing',
        status: 'triggered',
        attempt: 2,
        routineResult: { recovered: true },
      });
    // each hung or failed run ran exactly once more, with the input rebuilt from the stored envelope
    expect(ran).toHaveLength((COUNT / 3) * 2);
    expect(new Set(ran.map((r) => r.key)).size).toBe(ran.length);
    for (const r of ran) expect(r.input).toEqual({ i: Number(r.key.split(':')[1]) });

    for (let i = 0; i < COUNT; i++) {
      const rec = (await engine.record('acme', `order:${i}`))!;
      expect(rec.state).toBe('triggered');
      expect(rec.attempts).toBe(i % 3 === 0 ? 1 : 2);
      expect(rec.recovery).toBeNull();
      if (i % 3 === 2)
        expect(
          (await twin.get(RUN_TYPE, `${recordId('acme', `order:${i}`)}.1`))!.fields.state,
        ).toBe('running');
    }
    // nothing left to recover; a late retry of a recovered delivery is a duplicate
    expect(await engine.recoverIncomplete('acme')).toEqual({
      tenantId: 'acme',
      recovered: [],
      skipped: [],
    });
    expect(
      (await engine.ingest(envelope({ dedupeKey: 'order:2', eventId: 'ord_2', payload: { i: 2 } })))
        .status,
    ).toBe('duplicate');
    await world.close();
  });
});

describe('claims across processes', () => {
  it('three processes ingesting the same 40 keys at once run each routine once', async () => {
    const root = freshRoot();
    await prepare(root);
    const run = (label: string) =>
      new Promise<string[]>((resolve, reject) => {
        const child = spawn(
          process.execPath,
          ['dist/test/support/trigger-crash-worker.js', 'race', root, label, '40'],
          { stdio: ['ignore', 'pipe', 'inherit'] },
        );
        let out = '';
        child.stdout!.setEncoding('utf8').on('data', (c: string) => (out += c));
        child.on('error', reject);
        child.on('exit', (code) =>
          code === 0
            ? resolve(JSON.parse(out.trim()) as string[])
            : reject(new Error(`worker ${label} exited ${code}`)),
        );
      });
    const answers = (await Promise.all(['a', 'b', 'c'].map(run))).flat();
    expect(answers.filter((s) => s === 'triggered')).toHaveLength(40);
    expect(answers.every((s) => ['triggered', 'in_progress', 'duplicate'].includes(s))).toBe(true);
    const world = openWorld({ root });
    const ran = await world.twin('side').list('ran');
    expect(ran).toHaveLength(40);
    expect(new Set(ran.map((r) => r.fields.key)).size).toBe(40);
    expect(
      (await world.twin('triggers').list(RECORD_TYPE)).every(
        (r) => r.fields.state === 'triggered' && r.fields.attempts === 1,
      ),
    ).toBe(true);
    await world.close();
  });
});

describe('recoverIncomplete in one process', () => {
  it('two recoveries racing for one record run it once', async () => {
    const clock = new VirtualClock(T0);
    const root = freshRoot();
    const h = await harness({ root, clock });
    // A record left processing by a frozen process: its world's clock never moves again, so it
    // never heartbeats, and its routine never returns.
    const frozen = openWorld({ root, clock: new VirtualClock(T0), seed: 'frozen' });
    const stuck = new TriggerEngine({
      world: frozen,
      runner: { run: () => new Promise(() => {}) },
    });
    stuck.registerRoute({
      triggerId: 'order.placed',
      routineId: 'fulfil',
      buildInput: (e) => e.payload,
    });
    await stuck.start();
    void stuck.ingest(envelope());
    await vi.waitFor(async () =>
      expect((await h.engine.record('acme', 'order:ord_1'))?.state).toBe('processing'),
    );
    const other = await harness({ root, clock });
    // While its lease holds, neither recovery touches it.
    expect((await h.engine.recoverIncomplete('acme')).skipped).toEqual([
      { recordId: recordId('acme', 'order:ord_1'), reason: 'not_stale' },
    ]);
    await clock.advance(30_000);
    const [a, b] = await Promise.all([
      h.engine.recoverIncomplete('acme'),
      other.engine.recoverIncomplete('acme'),
    ]);
    expect(a.recovered.length + b.recovered.length).toBe(1);
    expect([...a.skipped, ...b.skipped]).toEqual([
      { recordId: recordId('acme', 'order:ord_1'), reason: 'claimed_elsewhere' },
    ]);
    expect(h.calls.length + other.calls.length).toBe(1);
    expect(await h.engine.record('acme', 'order:ord_1')).toMatchObject({
      state: 'triggered',
      attempts: 2,
    });
    await other.world.close();
    await h.world.close();
    await frozen.close();
  });

  it('a late finish from an owner that lost its claim is refused and kept, never overwriting the newer one', async () => {
    const root = freshRoot();
    const clock = new VirtualClock(T0);
    // The first owner freezes (its clock stops: no heartbeat) while its routine is running.
    const frozenWorld = openWorld({ root, clock: new VirtualClock(T0), seed: 'frozen' });
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const frozenRunner = new InProcessRunner(frozenWorld).register('r', async () => {
      await gate;
      return 'late';
    });
    const frozen = new TriggerEngine({
      world: frozenWorld,
      runner: frozenRunner,
      owner: 'wrk_frozen',
    });
    frozen.registerRoute({ triggerId: 'order.placed', routineId: 'r', buildInput: () => null });
    await frozen.start();
    const first = frozen.ingest(envelope());

    const world = openWorld({ root, clock, seed: 'live' });
    const runner = new InProcessRunner(world).register('r', async () => 'recovered');
    const engine = new TriggerEngine({ world, runner, owner: 'wrk_live' });
    engine.registerRoute({ triggerId: 'order.placed', routineId: 'r', buildInput: () => null });
    await engine.start();
    await vi.waitFor(async () =>
      expect((await engine.record('acme', 'order:ord_1'))?.owner).toBe('wrk_frozen'),
    );
    await clock.advance(30_000);
    const report = await engine.recoverIncomplete('acme');
    expect(report.recovered).toMatchObject([
      { attempt: 2, status: 'triggered', routineResult: 'recovered' },
    ]);
    release();
    const refused = await expectRefusal(() => first, 'STALE_OWNER');
    expect(refused.details).toMatchObject({ attempt: 1, owner: 'wrk_frozen' });
    expect(await engine.record('acme', 'order:ord_1')).toMatchObject({
      state: 'triggered',
      attempts: 2,
      result: 'recovered',
      lastSupersededAttempt: 1,
      lateObservation: { attempt: 1, owner: 'wrk_frozen', ok: true, result: 'late' },
      owner: null,
      dueAt: null,
    });
    expect(
      (await world.twin('triggers').get(RUN_TYPE, `${recordId('acme', 'order:ord_1')}.1`))!.fields,
    ).toMatchObject({ state: 'succeeded', result: 'late' });
    await frozenWorld.close();
    await world.close();
  });

  it('a live owner heartbeats: its run is never taken over while it works', async () => {
    const clock = new VirtualClock(T0);
    const world = openWorld({ root: ':memory:', clock });
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const runner = new InProcessRunner(world).register('r', async () => {
      await gate;
      return 'done';
    });
    const engine = new TriggerEngine({ world, runner, leaseMs: 3_000 });
    engine.registerRoute({ triggerId: 'order.placed', routineId: 'r', buildInput: () => null });
    await engine.start();
    const first = engine.ingest(envelope());
    await vi.waitFor(async () =>
      expect((await engine.record('acme', 'order:ord_1'))?.state).toBe('processing'),
    );
    // Ten leases' worth of world time: the owner's beats keep extending it.
    for (let i = 0; i < 30; i++) await clock.advance(1_000);
    expect((await engine.recoverIncomplete('acme')).skipped).toMatchObject([
      { reason: 'not_stale' },
    ]);
    const rec = (await engine.record('acme', 'order:ord_1'))!;
    expect(Date.parse(rec.leaseUntil!)).toBeGreaterThan(clock.now());
    release();
    expect(await first).toMatchObject({ status: 'triggered', attempt: 1, routineResult: 'done' });
    expect(await engine.record('acme', 'order:ord_1')).toMatchObject({ owner: null, dueAt: null });
    await world.close();
  });

  it('skips records whose trigger has no route now, and refuses bad arguments', async () => {
    const h = await harness();
    const stuck = new TriggerEngine({
      world: h.world,
      runner: {
        run: async () => {
          throw new Error('x');
        },
      },
    });
    stuck.registerRoute({ triggerId: 'gone', routineId: 'r', buildInput: () => null });
    await stuck.start();
    await expectRefusal(() => stuck.ingest(envelope({ triggerId: 'gone' })), 'ROUTINE_FAILED');
    expect(await h.engine.recoverIncomplete('acme')).toEqual({
      tenantId: 'acme',
      recovered: [],
      skipped: [{ recordId: recordId('acme', 'order:ord_1'), reason: 'UNKNOWN_TRIGGER' }],
    });
    expect((await h.engine.recoverIncomplete('globex')).recovered).toEqual([]);
    await expectRefusal(
      () => h.engine.recoverIncomplete('bad tenant'),
      'INVALID_ARGUMENT',
      'tenantId',
    );
    await expectRefusal(
      () => h.engine.recoverIncomplete('acme', { staleAfterMs: -1 }),
      'INVALID_ARGUMENT',
      'staleAfterMs',
    );
    await expectRefusal(
      () => h.engine.recoverIncomplete('acme', { staleAfterMs: 1.5 }),
      'INVALID_ARGUMENT',
      'staleAfterMs',
    );
    await h.engine.stop();
    await expectRefusal(() => h.engine.recoverIncomplete('acme'), 'ENGINE_STOPPED');
    await h.world.close();
  });
});
