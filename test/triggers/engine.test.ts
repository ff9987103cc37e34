// The engine's answer contract: triggered, filtered, duplicate, in_progress, PAYLOAD_CONFLICT,
// UNKNOWN_TRIGGER and ROUTINE_FAILED — each decision a write in the trigger twin, records
// found by their derived id, never by scanning.
import { afterAll, describe, expect, it, vi } from 'vitest';
import { TwinError } from '../../src/errors.js';
import type { JsonValue } from '../../src/log/json-value.js';
import { VirtualClock } from '../../src/world/clock.js';
import { openWorld } from '../../src/world/world.js';
import { TriggerEngine } from '../../src/triggers/engine/engine.js';
import { InProcessRunner, RUN_TYPE } from '../../src/triggers/in-process-runner.js';
import {
  RECEIPT_TYPE,
  RECORD_TYPE,
  recordId,
  type RecordFields,
} from '../../src/triggers/trigger-records.js';
import type { RoutineRunner } from '../../src/triggers/runner.js';
import { collect, envelope, expectRefusal, harness, operations, T0 } from './support.js';
import { backends, type BackendCase } from '../support/backends.js';
import type { StorageBackend } from '../../src/storage/port.js';
import type { World } from '../../src/world/world.js';

/** Dedupe and conflicts run on every backend; each world gets a fresh home, removed at the end. */
interface EngineBackend {
  readonly name: string;
  readonly durable: boolean;
  options(): { backend: StorageBackend };
  open(clock: VirtualClock): World;
  /** A fresh home with a second handle on it (durable backends: another connection). */
  pair(): { backend: StorageBackend; reopen: () => StorageBackend };
}
const cleanups: (() => void)[] = [];
afterAll(() => cleanups.forEach((cleanup) => cleanup()));
function fresh(c: BackendCase): ReturnType<BackendCase['create']> {
  const made = c.create();
  cleanups.push(made.cleanup);
  return made;
}
const engineBackends: EngineBackend[] = backends.map((c) => ({
  name: c.name,
  durable: c.durable,
  options: () => ({ backend: fresh(c).backend }),
  open: (clock) => openWorld({ root: ':memory:', clock, backend: fresh(c).backend }),
  pair: () => fresh(c),
}));

function answerContract(b: EngineBackend): void {
  it('triggers the routed routine once and answers its result, recording receive, start and finish', async () => {
    const { world, engine, calls } = await harness(b.options());
    const answer = await engine.ingest(envelope());
    expect(answer).toEqual({
      status: 'triggered',
      tenantId: 'acme',
      triggerId: 'order.placed',
      dedupeKey: 'order:ord_1',
      recordId: recordId('acme', 'order:ord_1'),
      scheduledAt: T0,
      routineId: 'fulfil',
      runKey: 'order:ord_1',
      attempt: 1,
      routineResult: { fulfilled: 'ord_1' },
    });
    expect(calls).toEqual([
      {
        routineId: 'fulfil',
        input: { order: 'ord_1', total: 4200 },
        runKey: 'order:ord_1',
        attempt: 1,
      },
    ]);
    expect(await operations(world)).toEqual(['trigger.receive', 'trigger.start', 'trigger.finish']);
    const record = (await engine.record('acme', 'order:ord_1'))!;
    expect(record).toMatchObject({
      state: 'triggered',
      attempts: 1,
      currentAttempt: null,
      result: { fulfilled: 'ord_1' },
      error: null,
      recovery: null,
    });
    expect(record.envelope.payload).toEqual({ order: 'ord_1', total: 4200 });
    // the built-in runner's run, recorded on the same writes
    const run = (await world.twin('triggers').get(RUN_TYPE, `${answer.recordId}.1`))!;
    expect(run.fields).toMatchObject({
      routineId: 'fulfil',
      runKey: 'order:ord_1',
      attempt: 1,
      state: 'succeeded',
      result: { fulfilled: 'ord_1' },
    });
    await world.close();
  });

  it('answers duplicate for a repeated key, with the first result and the first nominal time, without running again', async () => {
    const { world, engine, clock, calls } = await harness(b.options());
    await engine.ingest(envelope());
    await clock.advance(60_000);
    const retry = envelope({
      scheduledAt: '2026-03-01T12:01:00.000Z',
      occurredAt: '2026-03-01T12:00:30.000Z',
    });
    const answer = await engine.ingest(retry);
    expect(answer).toMatchObject({
      status: 'duplicate',
      original: 'triggered',
      routineResult: { fulfilled: 'ord_1' },
      scheduledAt: T0,
    });
    expect(calls).toHaveLength(1);
    expect((await engine.record('acme', 'order:ord_1'))!.envelope.scheduledAt).toBe(T0);
    expect(await operations(world)).toEqual([
      'trigger.receive',
      'trigger.start',
      'trigger.finish',
      'trigger.repeats',
    ]);
    // counted on the record it repeats, not kept as a receipt of its own
    expect(await world.twin('triggers').list(RECEIPT_TYPE)).toEqual([]);
    expect((await engine.record('acme', 'order:ord_1')) as unknown).toMatchObject({
      repeats: {
        count: 1,
        byKind: { duplicate: 1 },
        firstAt: '2026-03-01T12:01:00.000Z',
        lastAt: '2026-03-01T12:01:00.000Z',
        lastKind: 'duplicate',
        lastDedupeKey: 'order:ord_1',
      },
    });
    await world.close();
  });

  it('the same key in another tenant is another event', async () => {
    const { world, engine, calls } = await harness(b.options());
    await engine.ingest(envelope());
    const other = await engine.ingest(envelope({ tenantId: 'globex' }));
    expect(other.status).toBe('triggered');
    expect(other.recordId).not.toBe(recordId('acme', 'order:ord_1'));
    expect(calls).toHaveLength(2);
    await world.close();
  });

  it('answers filtered when the route filter says no, and duplicate (original filtered) after', async () => {
    const world = b.open(new VirtualClock(T0));
    const run = vi.fn(async () => 'ran');
    const engine = new TriggerEngine({ world, runner: { run } });
    engine.registerRoute({
      triggerId: 'order.placed',
      routineId: 'fulfil',
      filter: (e) => (e.payload as { total: number }).total > 5000,
      buildInput: (e) => e.payload,
    });
    await engine.start();
    const answer = await engine.ingest(envelope());
    expect(answer).toMatchObject({
      status: 'filtered',
      routineId: 'fulfil',
      recordId: recordId('acme', 'order:ord_1'),
    });
    expect(run).not.toHaveBeenCalled();
    expect(await engine.record('acme', 'order:ord_1')).toMatchObject({
      state: 'filtered',
      attempts: 0,
    });
    expect(await engine.ingest(envelope())).toMatchObject({
      status: 'duplicate',
      original: 'filtered',
      routineResult: null,
    });
    expect(await operations(world)).toEqual([
      'trigger.receive',
      'trigger.filter',
      'trigger.repeats',
    ]);
    expect(
      (await engine.ingest(envelope({ dedupeKey: 'order:big', payload: { total: 9000 } }))).status,
    ).toBe('triggered');
    await world.close();
  });

  it('answers in_progress while the first run is still running, and duplicate once it finished', async () => {
    const world = b.open(new VirtualClock(T0));
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const runner = new InProcessRunner(world).register('slow', async () => {
      await gate;
      return 'done';
    });
    const engine = new TriggerEngine({ world, runner });
    engine.registerRoute({ triggerId: 'order.placed', routineId: 'slow', buildInput: () => null });
    await engine.start();
    const first = engine.ingest(envelope());
    await new Promise((r) => setTimeout(r, 20));
    const second = await engine.ingest(envelope());
    expect(second).toMatchObject({ status: 'in_progress', attempt: 1, scheduledAt: T0 });
    expect((await engine.record('acme', 'order:ord_1'))!.state).toBe('processing');
    release();
    expect(await first).toMatchObject({ status: 'triggered', routineResult: 'done' });
    expect(await engine.ingest(envelope())).toMatchObject({ status: 'duplicate' });
    expect(await operations(world)).toEqual([
      'trigger.receive',
      'trigger.start',
      'trigger.repeats',
      'trigger.finish',
    ]);
    // both repeats, one window: one count on the record, written at the first
    await engine.stop();
    expect(await operations(world)).toEqual([
      'trigger.receive',
      'trigger.start',
      'trigger.repeats',
      'trigger.finish',
      'trigger.repeats',
    ]);
    expect((await engine.record('acme', 'order:ord_1')) as unknown).toMatchObject({
      repeats: { count: 2, byKind: { in_progress: 1, duplicate: 1 }, lastKind: 'duplicate' },
    });
    await world.close();
  });

  it('runs the routine once when many ingests of one key arrive together (one batch)', async () => {
    const { world, engine, calls } = await harness(b.options());
    const answers = await Promise.all(Array.from({ length: 10 }, () => engine.ingest(envelope())));
    expect(calls).toHaveLength(1);
    expect(answers.filter((a) => a.status === 'triggered')).toHaveLength(1);
    expect(answers.filter((a) => a.status === 'in_progress')).toHaveLength(9);
    await world.close();
  });

  it('within one batch, a later decision sees the earlier ones: same key, other payload is a conflict', async () => {
    const { world, engine, calls } = await harness(b.options());
    const [first, second] = await Promise.allSettled([
      engine.ingest(envelope()),
      engine.ingest(envelope({ payload: { order: 'ord_1', total: 1 } })),
    ]);
    expect(first).toMatchObject({ status: 'fulfilled', value: { status: 'triggered' } });
    expect(second).toMatchObject({
      status: 'rejected',
      reason: { code: 'PAYLOAD_CONFLICT', path: 'payload' },
    });
    expect(calls).toHaveLength(1);
    // both decisions went into one commit, in order
    expect(await operations(world)).toEqual([
      'trigger.receive',
      'trigger.start',
      'trigger.conflict',
      'trigger.finish',
    ]);
    await world.close();
  });

  // Memory has no second connection: one process is all it ever serves.
  if (b.durable)
    it('two engines on one store (two connections, as two processes) run a key once', async () => {
      const home = b.pair();
      const a = await harness({ backend: home.backend });
      const b2 = await harness({ backend: home.reopen(), clock: a.clock });
      const keys = Array.from({ length: 20 }, (_, i) =>
        envelope({ dedupeKey: `order:${i}`, eventId: `ord_${i}` }),
      );
      const answers = await Promise.all(
        keys.flatMap((e) => [a.engine.ingest(e), b2.engine.ingest(e)]),
      );
      expect(a.calls.length + b2.calls.length).toBe(20);
      expect(answers.filter((x) => x.status === 'triggered')).toHaveLength(20);
      expect(
        answers.filter(
          (x) => x.status === 'triggered' || x.status === 'in_progress' || x.status === 'duplicate',
        ),
      ).toHaveLength(40);
      await a.world.close();
      await b2.world.close();
    });
}
describe.each(engineBackends)('ingest: the answer contract: $name', answerContract);

function refusalContract(b: EngineBackend): void {
  it.each([
    ['scopeId', { scopeId: 'store-2' }],
    ['source', { source: { kind: 'webhook' as const, provider: 'shop' } }],
    ['source', { source: { kind: 'custom' as const, provider: 'other' } }],
    ['payload', { payload: { order: 'ord_1', total: 1 } }],
    ['triggerId', { triggerId: 'order.cancelled' }],
  ])(
    'the same key with another %s is PAYLOAD_CONFLICT, recorded, and the record is untouched',
    async (path, overrides) => {
      const { world, engine, calls } = await harness(b.options());
      engine.registerRoute({
        triggerId: 'order.cancelled',
        routineId: 'fulfil',
        buildInput: (e) => e.payload,
      });
      await engine.ingest(envelope());
      const before = await world.twin('triggers').get(RECORD_TYPE, recordId('acme', 'order:ord_1'));
      const e = await expectRefusal(
        () => engine.ingest(envelope(overrides)),
        'PAYLOAD_CONFLICT',
        path,
      );
      expect(e.details).toMatchObject({
        recordId: recordId('acme', 'order:ord_1'),
        dedupeKey: 'order:ord_1',
        differs: path,
      });
      expect(calls).toHaveLength(1);
      expect(
        await world.twin('triggers').get(RECORD_TYPE, recordId('acme', 'order:ord_1')),
      ).toEqual(before);
      expect((await operations(world)).at(-1)).toBe('trigger.conflict');
      const receipt = (await world.twin('triggers').list(RECEIPT_TYPE))[0]!.fields;
      expect(receipt).toMatchObject({
        status: 'refused',
        code: 'PAYLOAD_CONFLICT',
        path,
        dedupeKey: 'order:ord_1',
      });
      // the original still answers duplicate
      expect((await engine.ingest(envelope())).status).toBe('duplicate');
      await world.close();
    },
  );

  it('a conflicting key is refused while the first is still in progress too', async () => {
    const world = b.open(new VirtualClock(T0));
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const engine = new TriggerEngine({ world, runner: { run: async () => (await gate, 'ok') } });
    engine.registerRoute({ triggerId: 'order.placed', routineId: 'r', buildInput: () => null });
    await engine.start();
    const first = engine.ingest(envelope());
    await new Promise((r) => setTimeout(r, 10));
    await expectRefusal(
      () => engine.ingest(envelope({ payload: { other: true } })),
      'PAYLOAD_CONFLICT',
      'payload',
    );
    release();
    await first;
    await world.close();
  });

  it('an unknown trigger is UNKNOWN_TRIGGER, recorded, and nothing is claimed', async () => {
    const { world, engine, calls } = await harness(b.options());
    const e = await expectRefusal(
      () => engine.ingest(envelope({ triggerId: 'nobody.listens' })),
      'UNKNOWN_TRIGGER',
      'triggerId',
    );
    expect(e.message).toContain('registerRoute');
    expect(calls).toHaveLength(0);
    expect(await engine.record('acme', 'order:ord_1')).toBeUndefined();
    expect(await operations(world)).toEqual(['trigger.refuse']);
    expect((await world.twin('triggers').list(RECEIPT_TYPE))[0]!.fields).toMatchObject({
      status: 'refused',
      code: 'UNKNOWN_TRIGGER',
      triggerId: 'nobody.listens',
      dedupeKey: 'order:ord_1',
      provider: 'shop',
    });
    // once a route exists, the same delivery goes through
    engine.registerRoute({
      triggerId: 'nobody.listens',
      routineId: 'fulfil',
      buildInput: (x) => x.payload,
    });
    expect((await engine.ingest(envelope({ triggerId: 'nobody.listens' }))).status).toBe(
      'triggered',
    );
    await world.close();
  });

  it('an invalid envelope is INVALID_ENVELOPE before anything is written', async () => {
    const { world, engine } = await harness(b.options());
    const bad = { ...JSON.parse(JSON.stringify(envelope())), dedupeKey: '' };
    await expectRefusal(() => engine.ingest(bad), 'INVALID_ENVELOPE', 'dedupeKey');
    await expectRefusal(
      () =>
        engine.ingest({ ...JSON.parse(JSON.stringify(envelope())), payload: { tampered: true } }),
      'INVALID_ENVELOPE',
      'payloadHash',
    );
    expect(await operations(world)).toEqual([]);
    await world.close();
  });

  it('refuses to ingest before start and after stop (ENGINE_STOPPED)', async () => {
    const { world, engine } = await harness({ ...b.options(), start: false });
    await expectRefusal(() => engine.ingest(envelope()), 'ENGINE_STOPPED');
    await engine.start();
    await engine.stop();
    await expectRefusal(() => engine.ingest(envelope()), 'ENGINE_STOPPED');
    await expectRefusal(() => engine.start(), 'ENGINE_STOPPED');
    expect(await operations(world)).toEqual([]);
    await world.close();
  });
}
describe.each(engineBackends)('ingest: refusals, each recorded: $name', refusalContract);

describe('routines that do not finish', () => {
  function failing(
    world: ReturnType<typeof openWorld>,
    failures: number,
  ): { engine: TriggerEngine; attempts: number[] } {
    const attempts: number[] = [];
    const runner = new InProcessRunner(world).register('flaky', async (_input, ctx) => {
      attempts.push(ctx.attempt);
      if (attempts.length <= failures) throw new TypeError('secret-ish internal detail');
      return { ok: true };
    });
    const engine = new TriggerEngine({ world, runner });
    engine.registerRoute({
      triggerId: 'order.placed',
      routineId: 'flaky',
      buildInput: (e) => e.payload,
    });
    return { engine, attempts };
  }

  it('a thrown routine is ROUTINE_FAILED; the record is failed with a code, never the exception text', async () => {
    const world = openWorld({ root: ':memory:', clock: new VirtualClock(T0) });
    const { engine } = failing(world, 1);
    await engine.start();
    const e = await expectRefusal(() => engine.ingest(envelope()), 'ROUTINE_FAILED');
    expect(e.details).toMatchObject({
      recordId: recordId('acme', 'order:ord_1'),
      attempt: 1,
      error: 'TypeError',
    });
    expect(e.cause).toBeInstanceOf(TypeError);
    expect(await engine.record('acme', 'order:ord_1')).toMatchObject({
      state: 'failed',
      error: 'TypeError',
      recovery: 'failed/acme',
    });
    expect(await operations(world)).toEqual(['trigger.receive', 'trigger.start', 'trigger.fail']);
    expect((await collect(world.twin('triggers').exportLines())).join('\n')).not.toContain(
      'secret-ish',
    );
    await world.close();
  });

  it('a retried delivery of a failed key runs it again (attempt 2) and keeps the first nominal time', async () => {
    const world = openWorld({ root: ':memory:', clock: new VirtualClock(T0) });
    const { engine, attempts } = failing(world, 1);
    await engine.start();
    await expectRefusal(() => engine.ingest(envelope()), 'ROUTINE_FAILED');
    const answer = await engine.ingest(envelope({ scheduledAt: '2026-03-01T13:00:00.000Z' }));
    expect(answer).toMatchObject({
      status: 'triggered',
      attempt: 2,
      scheduledAt: T0,
      routineResult: { ok: true },
    });
    expect(attempts).toEqual([1, 2]);
    expect(
      (await world.twin('triggers').get(RUN_TYPE, `${answer.recordId}.1`))!.fields,
    ).toMatchObject({ state: 'failed', error: 'TypeError' });
    expect(
      (await world.twin('triggers').get(RUN_TYPE, `${answer.recordId}.2`))!.fields,
    ).toMatchObject({ state: 'succeeded' });
    await world.close();
  });

  it('a buildInput that throws, a non-JSON or oversized result, an unknown routine: all failed runs', async () => {
    const world = openWorld({ root: ':memory:', clock: new VirtualClock(T0) });
    const results: Record<string, unknown> = { nan: Number.NaN, big: 'x'.repeat(300 * 1024) };
    const runner = new InProcessRunner(world).register(
      'answers',
      async (input) => results[input as string] as JsonValue,
    );
    const engine = new TriggerEngine({ world, runner });
    engine.registerRoute({
      triggerId: 'order.placed',
      routineId: 'answers',
      buildInput: (e) => (e.payload as { r: string }).r,
    });
    engine.registerRoute({
      triggerId: 'broken.input',
      routineId: 'answers',
      buildInput: () => {
        throw new RangeError('no');
      },
    });
    engine.registerRoute({ triggerId: 'no.routine', routineId: 'missing', buildInput: () => null });
    await engine.start();
    const code = async (overrides: Parameters<typeof envelope>[0]) =>
      String(
        (await expectRefusal(() => engine.ingest(envelope(overrides)), 'ROUTINE_FAILED')).details
          ?.error,
      );
    expect(await code({ dedupeKey: 'k1', payload: { r: 'nan' } })).toBe('INVALID_WRITE');
    expect(await code({ dedupeKey: 'k2', payload: { r: 'big' } })).toBe('PAYLOAD_TOO_LARGE');
    expect(await code({ dedupeKey: 'k3', triggerId: 'broken.input' })).toBe('RangeError');
    expect(await code({ dedupeKey: 'k4', triggerId: 'no.routine' })).toBe('UNKNOWN_ROUTINE');
    await world.close();
  });
});

describe('records: found by key, never by scanning', () => {
  it('derives the record id from tenant and dedupeKey, and never lists or looks up to dedupe', async () => {
    const { world, engine } = await harness();
    const twin = world.twin('triggers');
    const list = vi.spyOn(twin, 'list');
    const lookup = vi.spyOn(twin, 'lookup');
    for (let i = 0; i < 5; i++)
      await engine.ingest(envelope({ dedupeKey: `k${i % 3}`, eventId: `e${i % 3}` }));
    expect(list).not.toHaveBeenCalled();
    expect(lookup).not.toHaveBeenCalled();
    expect((await twin.get(RECORD_TYPE, recordId('acme', 'k1')))!.fields).toMatchObject({
      state: 'triggered',
    } satisfies Partial<RecordFields>);
    expect(recordId('acme', 'k1')).toMatch(/^trg_[0-9a-f]{64}$/);
    expect(recordId('acme', 'k1')).not.toBe(recordId('acm', 'ek1'));
    await world.close();
  });

  it('the trigger twin replays to the same state hash (every decision is in the log)', async () => {
    const { world, engine } = await harness();
    await engine.ingest(envelope());
    await engine.ingest(envelope());
    await expectRefusal(() => engine.ingest(envelope({ payload: 1 })), 'PAYLOAD_CONFLICT');
    const { replayLines } = await import('../../src/world/replay.js');
    const twin = world.twin('triggers');
    const replay = await replayLines(await collect(twin.exportLines()));
    expect(replay.hash).toBe(await twin.hash());
    await world.close();
  });
});

describe('engine configuration refusals', () => {
  it('refuses bad constructor options and routes', async () => {
    const world = openWorld({ root: ':memory:' });
    const runner: RoutineRunner = { run: async () => null };
    await expectRefusal(() => new TriggerEngine(undefined as never), 'INVALID_ARGUMENT', 'options');
    await expectRefusal(() => new TriggerEngine({ runner } as never), 'INVALID_ARGUMENT', 'world');
    await expectRefusal(() => new TriggerEngine({ world } as never), 'INVALID_ARGUMENT', 'runner');
    await expectRefusal(
      () => new TriggerEngine({ world, runner, twin: 'Bad Name' }),
      'INVALID_ARGUMENT',
      'twin',
    );
    const engine = new TriggerEngine({ world, runner });
    await expectRefusal(
      () =>
        engine.registerRoute({ triggerId: 'has space', routineId: 'r', buildInput: () => null }),
      'INVALID_ARGUMENT',
      'route.triggerId',
    );
    await expectRefusal(
      () => engine.registerRoute({ triggerId: 't', routineId: '', buildInput: () => null }),
      'INVALID_ARGUMENT',
      'route.routineId',
    );
    await expectRefusal(
      () => engine.registerRoute({ triggerId: 't', routineId: 'r' } as never),
      'INVALID_ARGUMENT',
      'route.buildInput',
    );
    await expectRefusal(
      () =>
        engine.registerRoute({
          triggerId: 't',
          routineId: 'r',
          filter: 'yes',
          buildInput: () => null,
        } as never),
      'INVALID_ARGUMENT',
      'route.filter',
    );
    engine.registerRoute({ triggerId: 't', routineId: 'r', buildInput: () => null });
    await expectRefusal(
      () => engine.registerRoute({ triggerId: 't', routineId: 'r2', buildInput: () => null }),
      'INVALID_ARGUMENT',
      'route.triggerId',
    );
    await expectRefusal(() => engine.registerSource({ name: '' }), 'INVALID_ARGUMENT', 'source');
    engine.registerSource({ name: 's' });
    await expectRefusal(
      () => engine.registerSource({ name: 's' }),
      'INVALID_ARGUMENT',
      'source.name',
    );
    await engine.start();
    await expectRefusal(
      () => engine.registerSource({ name: 'late' }),
      'INVALID_ARGUMENT',
      'source',
    );
    await world.close();
  });

  it('start connects every source and starts no timer; stop waits for in-flight work, then disconnects', async () => {
    const clock = new VirtualClock(T0);
    const world = openWorld({ root: ':memory:', clock });
    const events: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const engine = new TriggerEngine({
      world,
      runner: { run: async () => (await gate, events.push('routine done'), 'ok') },
    });
    engine.registerRoute({ triggerId: 'order.placed', routineId: 'r', buildInput: () => null });
    engine.registerSource({
      name: 'a',
      connect: () => void events.push('connect a'),
      disconnect: () => void events.push('disconnect a'),
    });
    engine.registerSource({
      name: 'b',
      connect: async () => void events.push('connect b'),
      disconnect: () => void events.push('disconnect b'),
    });
    await engine.start();
    expect(events).toEqual(['connect a', 'connect b']);
    expect(clock.pending()).toBe(0);
    const running = engine.ingest(envelope());
    await new Promise((r) => setTimeout(r, 10));
    const stopped = engine.stop().then(() => events.push('stopped'));
    await new Promise((r) => setTimeout(r, 10));
    expect(events).not.toContain('stopped');
    release();
    await running;
    await stopped;
    expect(events).toEqual([
      'connect a',
      'connect b',
      'routine done',
      'disconnect b',
      'disconnect a',
      'stopped',
    ]);
    expect((await engine.record('acme', 'order:ord_1'))!.state).toBe('triggered');
    await world.close();
  });

  it('errors are TwinErrors with stable codes', () => {
    expect(new TwinError('ROUTINE_FAILED', 'x').toJSON()).toEqual({
      error: 'ROUTINE_FAILED',
      message: 'x',
    });
  });
});
