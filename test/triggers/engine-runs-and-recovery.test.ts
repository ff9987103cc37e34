// The engine's promises about one run and about recovery, in one process on the virtual clock:
// a run's heartbeats stop when it finishes or its engine stops, a heartbeat the store refuses is
// reported; a late finish is STALE_OWNER naming what it lost to; ROUTINE_FAILED says how to run
// it again and records only a short code; results and inputs are checked at a record's limits;
// takeOver and recoverIncomplete report every record they touch; and the argument checks of
// recoverIncomplete, recordRefusal and ingest's replayGuard refuse with the offending path.
import { describe, expect, it, vi } from 'vitest';
import { TwinError } from '../../src/errors.js';
import type { JsonValue } from '../../src/log/json-value.js';
import type { StorageBackend } from '../../src/storage/port.js';
import { MemoryBackend } from '../../src/storage/memory/memory-backend.js';
import { VirtualClock } from '../../src/world/clock.js';
import { openWorld, type World } from '../../src/world/world.js';
import { MAX_RESULT_BYTES } from '../../src/triggers/defaults.js';
import { TriggerEngine } from '../../src/triggers/engine/engine.js';
import { InProcessRunner, type RoutineFn } from '../../src/triggers/in-process-runner.js';
import { REFUSALS_TYPE } from '../../src/triggers/refusal-windows.js';
import type { RoutineRunner } from '../../src/triggers/runner.js';
import { tenantContext } from '../../src/triggers/tenant-context.js';
import { recordId } from '../../src/triggers/trigger-records.js';
import { type Refusal } from '../../src/triggers/receipts.js';
import { envelope, expectRefusal, harness, operations, T0 } from './support.js';
import { interceptStoreWrites } from '../support/intercepted-backend.js';

const RID = recordId('acme', 'order:ord_1');
const at = (ms: number): string => new Date(Date.parse(T0) + ms).toISOString();

interface Gate {
  readonly open: () => void;
  readonly opened: Promise<void>;
}
function gate(): Gate {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

/** A real memory store whose write sections fail, while `failOn` names an operation, on appending it. */
function faultyMemory(): {
  backend: StorageBackend;
  fault: { failOn: string | null; readonly error: TwinError };
} {
  const fault = {
    failOn: null as string | null,
    error: new TwinError('STORE_FAILED', 'injected: the store refused the section'),
  };
  const backend = interceptStoreWrites(new MemoryBackend(), {
    append: (entry, write) => {
      if (entry.operation === fault.failOn) throw fault.error;
      write();
    },
  });
  return { backend, fault };
}

interface Reported {
  readonly error: unknown;
  readonly where: string;
}

function world(options: { backend?: StorageBackend } = {}): {
  world: World;
  clock: VirtualClock;
  reported: Reported[];
} {
  const clock = new VirtualClock(T0);
  const reported: Reported[] = [];
  const w = openWorld({
    root: ':memory:',
    clock,
    seed: 'runs',
    onError: (error, where) => void reported.push({ error, where }),
    ...(options.backend === undefined ? {} : { backend: options.backend }),
  });
  return { world: w, clock, reported };
}

/** A started engine on `w` whose routine "r" (routed from order.placed) is `fn`. */
async function engineWith(w: World, owner: string, fn: RoutineFn): Promise<TriggerEngine> {
  const runner = new InProcessRunner(w).register('r', fn);
  const engine = new TriggerEngine({ world: w, runner, owner });
  engine.registerRoute({ triggerId: 'order.placed', routineId: 'r', buildInput: (e) => e.payload });
  await engine.start();
  return engine;
}

/** Settles a promise into its value or its rejection, so a rejection is never left unhandled. */
function settle<T>(p: Promise<T>): Promise<{ ok: true; value: T } | { ok: false; error: unknown }> {
  return p.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
}

async function staleOwner(
  p: Promise<{ ok: true; value: unknown } | { ok: false; error: unknown }>,
): Promise<TwinError> {
  const s = await p;
  expect(s.ok, 'expected STALE_OWNER').toBe(false);
  const error = (s as { error: unknown }).error;
  expect(error).toBeInstanceOf(TwinError);
  expect((error as TwinError).code).toBe('STALE_OWNER');
  return error as TwinError;
}

function nested(levels: number): JsonValue {
  let value: JsonValue = 'leaf';
  for (let i = 0; i < levels; i++) value = [value];
  return value;
}

describe('a run keeps its lease only while it runs', () => {
  it('a run heartbeats on the world clock while it works and leaves no timer behind once it finished', async () => {
    const { world: w, clock } = world();
    const g = gate();
    const engine = await engineWith(w, 'wrk_a', async () => (await g.opened, 'done'));
    const running = engine.ingest(envelope());
    await vi.waitFor(async () =>
      expect((await engine.record('acme', 'order:ord_1'))?.state).toBe('processing'),
    );
    expect(clock.pending()).toBe(1);
    await clock.advance(10_000);
    expect((await engine.record('acme', 'order:ord_1'))!.leaseUntil).toBe(at(40_000));
    g.open();
    expect(await running).toMatchObject({ status: 'triggered', routineResult: 'done' });
    expect(clock.pending()).toBe(0);
    await clock.advance(60_000);
    expect(await operations(w)).toEqual([
      'trigger.receive',
      'trigger.start',
      'trigger.heartbeat',
      'trigger.finish',
    ]);
    await w.close();
  });

  it('an engine stopped with a run in flight stops heartbeating it: its lease lapses, another engine takes it over, and the late result is STALE_OWNER', async () => {
    const { world: w, clock } = world();
    const g = gate();
    const first = await engineWith(w, 'wrk_a', async () => (await g.opened, 'late'));
    const second = await engineWith(w, 'wrk_b', async () => 'second');
    const late = settle(first.ingest(envelope()));
    await vi.waitFor(async () =>
      expect((await first.record('acme', 'order:ord_1'))?.state).toBe('processing'),
    );
    await first.stop({ graceMs: 0 });
    await clock.advance(30_000);
    expect(await operations(w)).toEqual(['trigger.receive', 'trigger.start']);
    expect((await first.record('acme', 'order:ord_1'))!.leaseUntil).toBe(at(30_000));

    expect(await second.takeOver(RID)).toEqual({
      recordId: RID,
      dedupeKey: 'order:ord_1',
      triggerId: 'order.placed',
      attempt: 2,
      from: 'processing',
      status: 'triggered',
      routineResult: 'second',
      error: null,
    });
    g.open();
    const e = await staleOwner(late);
    expect(e.message).toContain(`run ${RID} attempt 1 lost its claim`);
    expect(e.message).toContain('another owner took the record over');
    expect(e.message).toContain('its result is kept as a late observation');
    expect(e.details).toEqual({ recordId: RID, attempt: 1, owner: 'wrk_a', heldBy: null });
    expect(e.cause).toBeUndefined();
    expect(await second.record('acme', 'order:ord_1')).toMatchObject({
      state: 'triggered',
      attempts: 2,
      result: 'second',
      lateObservation: { attempt: 1, owner: 'wrk_a', ok: true, result: 'late' },
    });
    await w.close();
  });

  it('a heartbeat the store refuses is reported to world.reportError naming the run, and the next beat extends the lease', async () => {
    const { backend, fault } = faultyMemory();
    const { world: w, clock, reported } = world({ backend });
    const g = gate();
    const engine = await engineWith(w, 'wrk_a', async () => (await g.opened, 'done'));
    const running = engine.ingest(envelope());
    await vi.waitFor(async () =>
      expect((await engine.record('acme', 'order:ord_1'))?.state).toBe('processing'),
    );
    fault.failOn = 'trigger.heartbeat';
    await clock.advance(10_000);
    fault.failOn = null;
    expect(reported).toEqual([{ error: fault.error, where: `heartbeat of run ${RID}` }]);
    expect((await engine.record('acme', 'order:ord_1'))!.leaseUntil).toBe(at(30_000));
    await clock.advance(10_000);
    expect((await engine.record('acme', 'order:ord_1'))!.leaseUntil).toBe(at(50_000));
    g.open();
    expect(await running).toMatchObject({ status: 'triggered', attempt: 1 });
    await w.close();
  });
});

describe('STALE_OWNER and ROUTINE_FAILED', () => {
  it('a late failure from an owner that lost its claim is STALE_OWNER naming the new owner, caused by what the routine threw, and kept on the record', async () => {
    const { world: w, clock } = world();
    const lateGate = gate();
    const newGate = gate();
    const first = await engineWith(w, 'wrk_a', async () => {
      await lateGate.opened;
      throw new TypeError('late');
    });
    const second = await engineWith(w, 'wrk_b', async () => (await newGate.opened, 'second'));
    const late = settle(first.ingest(envelope()));
    await vi.waitFor(async () =>
      expect((await first.record('acme', 'order:ord_1'))?.state).toBe('processing'),
    );
    await first.stop({ graceMs: 0 });
    await clock.advance(30_000);
    const recovering = second.recoverIncomplete('acme');
    await vi.waitFor(async () =>
      expect((await second.record('acme', 'order:ord_1'))?.owner).toBe('wrk_b'),
    );
    lateGate.open();
    const e = await staleOwner(late);
    expect(e.message).toContain(`run ${RID} attempt 1 lost its claim`);
    expect(e.message).toContain('wrk_b took the record over');
    expect(e.message).toContain('its failure is kept as a late observation');
    expect(e.details).toEqual({ recordId: RID, attempt: 1, owner: 'wrk_a', heldBy: 'wrk_b' });
    expect(e.cause).toBeInstanceOf(TypeError);
    expect(await second.record('acme', 'order:ord_1')).toMatchObject({
      state: 'processing',
      owner: 'wrk_b',
      currentAttempt: 2,
      lateObservation: { attempt: 1, owner: 'wrk_a', ok: false, result: null, error: 'TypeError' },
    });
    newGate.open();
    expect((await recovering).recovered).toMatchObject([
      { recordId: RID, attempt: 2, from: 'processing', status: 'triggered' },
    ]);
    await w.close();
  });

  it('ROUTINE_FAILED names the routine, the trigger, the error code and the attempt, and how to run it again', async () => {
    const { world: w } = world();
    const engine = await engineWith(w, 'wrk_a', () => {
      throw new RangeError('secret detail');
    });
    const e = await expectRefusal(() => engine.ingest(envelope()), 'ROUTINE_FAILED');
    expect(e.message).toContain('routine "r" for trigger "order.placed" did not finish');
    expect(e.message).toContain('(RangeError) on attempt 1');
    expect(e.message).toContain('recoverIncomplete("acme") runs it again');
    expect(e.message).not.toContain('secret detail');
    expect(e.details).toEqual({
      recordId: RID,
      dedupeKey: 'order:ord_1',
      attempt: 1,
      error: 'RangeError',
    });
    await w.close();
  });

  it('what a routine threw is recorded as a short identifier only: its error name, else THROWN', async () => {
    const { world: w } = world();
    const named = (name: string): Error => Object.assign(new Error('detail'), { name });
    const thrown: Record<string, unknown> = {
      declined: named('CardDeclined'),
      text: 'a thrown string with a secret',
      object: { name: 'LooksLikeAnError' },
      spaced: named('leaked detail here'),
      long: named(`E${'x'.repeat(64)}`),
      digit: named('9Lives'),
    };
    const engine = await engineWith(w, 'wrk_a', (input) => {
      throw thrown[input as string];
    });
    const codes: Record<string, unknown> = {};
    for (const key of Object.keys(thrown)) {
      const e = await expectRefusal(
        () => engine.ingest(envelope({ dedupeKey: key, eventId: key, payload: key })),
        'ROUTINE_FAILED',
      );
      codes[key] = e.details?.error;
      expect((await engine.record('acme', key))!.error).toBe(codes[key]);
    }
    expect(codes).toEqual({
      declined: 'CardDeclined',
      text: 'THROWN',
      object: 'THROWN',
      spaced: 'THROWN',
      long: 'THROWN',
      digit: 'THROWN',
    });
    await w.close();
  });

  it('an input nested deeper than a record can keep fails the run at path input, before the routine runs', async () => {
    const { world: w } = world();
    const inputs: JsonValue[] = [];
    const runner = new InProcessRunner(w).register('r', (input) => (inputs.push(input), 'ran'));
    const engine = new TriggerEngine({ world: w, runner });
    // The input is the host's to build: here, the payload says how deep.
    engine.registerRoute({
      triggerId: 'order.placed',
      routineId: 'r',
      buildInput: (e) => nested(e.payload as number),
    });
    await engine.start();
    expect(
      await engine.ingest(envelope({ dedupeKey: 'ok', eventId: 'ok', payload: 63 })),
    ).toMatchObject({ status: 'triggered', routineResult: 'ran' });
    const e = await expectRefusal(
      () => engine.ingest(envelope({ dedupeKey: 'deep', eventId: 'deep', payload: 64 })),
      'ROUTINE_FAILED',
    );
    expect(e.details?.error).toBe('INVALID_WRITE');
    expect(e.cause).toBeInstanceOf(TwinError);
    expect((e.cause as TwinError).path).toMatch(/^input\[0\]/);
    expect(inputs).toEqual([nested(63)]);
    expect((await engine.record('acme', 'deep'))!.state).toBe('failed');
    await w.close();
  });

  it('a result is kept on its record up to the limits (undefined is null); past them the run fails at path routineResult', async () => {
    const { world: w } = world();
    const results: Record<string, unknown> = {
      none: undefined,
      deepest: nested(63),
      tooDeep: nested(64),
      largest: 'x'.repeat(MAX_RESULT_BYTES - 2),
      tooLarge: 'x'.repeat(MAX_RESULT_BYTES - 1),
    };
    // A host runner (the port), not the built-in one: it may answer undefined.
    const runner: RoutineRunner = {
      run: async ({ input }) => results[input as string] as JsonValue,
    };
    const engine = new TriggerEngine({ world: w, runner });
    engine.registerRoute({
      triggerId: 'order.placed',
      routineId: 'r',
      buildInput: (e) => e.payload,
    });
    await engine.start();
    const ingest = (key: string) =>
      engine.ingest(envelope({ dedupeKey: key, eventId: key, payload: key }));

    expect(await ingest('none')).toMatchObject({ status: 'triggered', routineResult: null });
    expect((await engine.record('acme', 'none'))!.result).toBeNull();
    expect(await ingest('deepest')).toMatchObject({ routineResult: nested(63) });
    expect((await engine.record('acme', 'deepest'))!.result).toEqual(nested(63));
    expect(await ingest('largest')).toMatchObject({ status: 'triggered' });
    expect((await engine.record('acme', 'largest'))!.result).toHaveLength(MAX_RESULT_BYTES - 2);

    const deep = await expectRefusal(() => ingest('tooDeep'), 'ROUTINE_FAILED');
    expect(deep.details?.error).toBe('INVALID_WRITE');
    expect((deep.cause as TwinError).path).toMatch(/^routineResult\[0\]/);
    const large = await expectRefusal(() => ingest('tooLarge'), 'ROUTINE_FAILED');
    expect(large.details?.error).toBe('PAYLOAD_TOO_LARGE');
    const cause = large.cause as TwinError;
    expect(cause.path).toBe('routineResult');
    expect(cause.message).toContain(
      `routine result is ${MAX_RESULT_BYTES + 1} bytes, over ${MAX_RESULT_BYTES}; answer a reference instead`,
    );
    for (const key of ['tooDeep', 'tooLarge'])
      expect(await engine.record('acme', key)).toMatchObject({ state: 'failed', result: null });
    await w.close();
  });
});

describe('takeOver', () => {
  it('answers undefined, running nothing, for an unknown record, a settled one, a failed one and a run whose owner still holds its lease', async () => {
    const { world: w } = world();
    const g = gate();
    let calls = 0;
    const engine = await engineWith(w, 'wrk_a', async (input) => {
      calls++;
      if (input === 'fail') throw new TypeError('no');
      if (input === 'hold') await g.opened;
      return 'ok';
    });
    const other = await engineWith(w, 'wrk_b', async () => (calls++, 'taken'));
    await engine.ingest(envelope({ dedupeKey: 'done', eventId: 'done', payload: 'done' }));
    await expectRefusal(
      () => engine.ingest(envelope({ dedupeKey: 'fail', eventId: 'fail', payload: 'fail' })),
      'ROUTINE_FAILED',
    );
    const held = engine.ingest(envelope({ dedupeKey: 'hold', eventId: 'hold', payload: 'hold' }));
    await vi.waitFor(async () =>
      expect((await engine.record('acme', 'hold'))?.state).toBe('processing'),
    );
    const before = await operations(w);
    expect(calls).toBe(3);

    expect(await other.takeOver('trg_nope')).toBeUndefined();
    expect(await other.takeOver(recordId('acme', 'done'))).toBeUndefined();
    expect(await other.takeOver(recordId('acme', 'fail'))).toBeUndefined();
    expect(await other.takeOver(recordId('acme', 'hold'))).toBeUndefined();
    expect(calls).toBe(3);
    expect(await operations(w)).toEqual(before);
    expect(await engine.record('acme', 'fail')).toMatchObject({ state: 'failed', attempts: 1 });
    g.open();
    expect(await held).toMatchObject({ status: 'triggered', attempt: 1, routineResult: 'ok' });
    await w.close();
  });

  it('is refused before start with ENGINE_STOPPED naming takeOver', async () => {
    const { world: w } = world();
    const engine = new TriggerEngine({ world: w, runner: { run: async () => null } });
    const e = await expectRefusal(() => engine.takeOver(RID), 'ENGINE_STOPPED');
    expect(e.message).toBe(
      'takeOver: the trigger engine has not been started; call engine.start() first',
    );
    await w.close();
  });
});

describe('recoverIncomplete reports every record it touched', () => {
  it('a recovered run that fails again is reported failed with its error code; the record stays failed and recoverable', async () => {
    const { world: w } = world();
    const engine = await engineWith(w, 'wrk_a', () => {
      throw new RangeError('again');
    });
    await expectRefusal(() => engine.ingest(envelope()), 'ROUTINE_FAILED');
    expect(await engine.recoverIncomplete('acme')).toEqual({
      tenantId: 'acme',
      recovered: [
        {
          recordId: RID,
          dedupeKey: 'order:ord_1',
          triggerId: 'order.placed',
          attempt: 2,
          from: 'failed',
          status: 'failed',
          routineResult: null,
          error: 'RangeError',
        },
      ],
      skipped: [],
    });
    expect(await engine.record('acme', 'order:ord_1')).toMatchObject({
      state: 'failed',
      attempts: 2,
      error: 'RangeError',
      recovery: 'failed/acme',
    });
    await w.close();
  });

  it('a recovery whose run lost its claim meanwhile reports the record claimed_elsewhere', async () => {
    const { world: w, clock } = world();
    const g = gate();
    const recoverer = await engineWith(w, 'wrk_r', async (_input, ctx) => {
      if (ctx.attempt === 1) throw new TypeError('first');
      await g.opened;
      return 'late';
    });
    const taker = await engineWith(w, 'wrk_t', async () => 'third');
    await expectRefusal(() => recoverer.ingest(envelope()), 'ROUTINE_FAILED');
    const recovering = recoverer.recoverIncomplete('acme');
    await vi.waitFor(async () =>
      expect(await recoverer.record('acme', 'order:ord_1')).toMatchObject({
        state: 'processing',
        owner: 'wrk_r',
        currentAttempt: 2,
      }),
    );
    await recoverer.stop({ graceMs: 0 });
    await clock.advance(30_000);
    expect(await taker.takeOver(RID)).toMatchObject({ attempt: 3, routineResult: 'third' });
    g.open();
    expect(await recovering).toEqual({
      tenantId: 'acme',
      recovered: [],
      skipped: [{ recordId: RID, reason: 'claimed_elsewhere' }],
    });
    expect(await taker.record('acme', 'order:ord_1')).toMatchObject({
      state: 'triggered',
      attempts: 3,
      result: 'third',
      lateObservation: { attempt: 2, owner: 'wrk_r', ok: true, result: 'late' },
    });
    await w.close();
  });

  it('a recovery whose finish the store refuses rejects with the store error, never reporting the run; the record stays recoverable', async () => {
    const { backend, fault } = faultyMemory();
    const { world: w, clock } = world({ backend });
    const engine = await engineWith(w, 'wrk_a', (_input, ctx) => {
      if (ctx.attempt === 1) throw new TypeError('first');
      return `attempt ${ctx.attempt}`;
    });
    await expectRefusal(() => engine.ingest(envelope()), 'ROUTINE_FAILED');
    fault.failOn = 'trigger.finish';
    await expect(engine.recoverIncomplete('acme')).rejects.toBe(fault.error);
    fault.failOn = null;
    expect(await engine.record('acme', 'order:ord_1')).toMatchObject({
      state: 'processing',
      currentAttempt: 2,
      owner: 'wrk_a',
    });
    await clock.advance(30_000);
    expect((await engine.recoverIncomplete('acme')).recovered).toMatchObject([
      { from: 'processing', attempt: 3, status: 'triggered', routineResult: 'attempt 3' },
    ]);
    await w.close();
  });

  it('staleAfterMs: a run started less than staleAfterMs ago is not_stale even after its lease lapsed', async () => {
    const { world: w, clock } = world();
    const first = await engineWith(w, 'wrk_a', () => new Promise<JsonValue>(() => {}));
    const second = await engineWith(w, 'wrk_b', async () => 'recovered');
    void first.ingest(envelope());
    await vi.waitFor(async () =>
      expect((await first.record('acme', 'order:ord_1'))?.state).toBe('processing'),
    );
    await first.stop({ graceMs: 0 });
    await clock.advance(40_000);
    expect(await second.recoverIncomplete('acme', { staleAfterMs: 60_000 })).toEqual({
      tenantId: 'acme',
      recovered: [],
      skipped: [{ recordId: RID, reason: 'not_stale' }],
    });
    expect(
      (await second.recoverIncomplete('acme', { staleAfterMs: 40_000 })).recovered,
    ).toMatchObject([
      { from: 'processing', attempt: 2, status: 'triggered', routineResult: 'recovered' },
    ]);
    await w.close();
  });

  it('two recoveries racing for a failed record: one runs it, the other reports claimed_elsewhere whatever staleAfterMs says', async () => {
    const { world: w } = world();
    const ran: string[] = [];
    const a = await engineWith(w, 'wrk_a', (_input, ctx) => {
      if (ctx.attempt === 1) throw new TypeError('first');
      ran.push('a');
      return 'a';
    });
    const b = await engineWith(w, 'wrk_b', () => (ran.push('b'), 'b'));
    await expectRefusal(() => a.ingest(envelope()), 'ROUTINE_FAILED');
    const reports = await Promise.all([
      a.recoverIncomplete('acme', { staleAfterMs: 3_600_000 }),
      b.recoverIncomplete('acme', { staleAfterMs: 3_600_000 }),
    ]);
    expect(ran).toHaveLength(1);
    expect(reports.flatMap((r) => r.recovered)).toMatchObject([
      { recordId: RID, from: 'failed', attempt: 2, status: 'triggered' },
    ]);
    expect(reports.flatMap((r) => r.skipped)).toEqual([
      { recordId: RID, reason: 'claimed_elsewhere' },
    ]);
    await w.close();
  });
});

describe('recoverIncomplete: who may, and with what options', () => {
  async function failedRecord() {
    const { world: w } = world();
    let fail = true;
    const engine = await engineWith(w, 'wrk_a', () => {
      if (fail) throw new TypeError('first');
      return 'recovered';
    });
    await expectRefusal(() => engine.ingest(envelope()), 'ROUTINE_FAILED');
    fail = false;
    return { w, engine };
  }

  it('a tenant context recovers its own tenant only when it may recover', async () => {
    const { w, engine } = await failedRecord();
    const reader = tenantContext({ tenantId: 'acme', may: ['read', 'ingest'] });
    const e = await expectRefusal(
      () => engine.recoverIncomplete('acme', reader),
      'TENANT_FORBIDDEN',
      'context.may',
    );
    expect(e.message).toContain('not recover, which is needed to recover the records');
    const globex = tenantContext({ tenantId: 'globex', may: ['recover'] });
    const other = await expectRefusal(
      () => engine.recoverIncomplete('acme', globex, { staleAfterMs: 0 }),
      'TENANT_FORBIDDEN',
      'context.tenantId',
    );
    expect(other.message).toContain('cannot recover the records of tenant "acme"');
    expect((await engine.record('acme', 'order:ord_1'))!.state).toBe('failed');

    const recoverer = tenantContext({ tenantId: 'acme', may: ['recover'] });
    expect(
      (await engine.recoverIncomplete('acme', recoverer, { staleAfterMs: 0 })).recovered,
    ).toMatchObject([{ recordId: RID, status: 'triggered', routineResult: 'recovered' }]);
    await w.close();
  });

  it('options other than {staleAfterMs} are refused with their path, so a look-alike context is never read as options', async () => {
    const { w, engine } = await failedRecord();
    const lookAlike = { kind: 'tenant', tenantId: 'acme', may: ['recover'] };
    const e = await expectRefusal(
      () => engine.recoverIncomplete('acme', lookAlike as never),
      'INVALID_ARGUMENT',
      'options.kind',
    );
    expect(e.message).toBe(
      'recoverIncomplete options has an unknown key "kind" (allowed: staleAfterMs); a context must be made by tenantContext({tenantId, may})',
    );
    const ctx = tenantContext({ tenantId: 'acme', may: ['recover'] });
    await expectRefusal(
      () => engine.recoverIncomplete('acme', ctx, { staleAfterMs: 0, force: true } as never),
      'INVALID_ARGUMENT',
      'options.force',
    );
    for (const options of [5, true, 'fast', ['staleAfterMs']]) {
      const refused = await expectRefusal(
        () => engine.recoverIncomplete('acme', options as never),
        'INVALID_ARGUMENT',
        'options',
      );
      expect(refused.message).toBe('recoverIncomplete options must be an object with staleAfterMs');
    }
    const stop = await expectRefusal(
      () => engine.stop({ grace: 0 } as never),
      'INVALID_ARGUMENT',
      'options.grace',
    );
    expect(stop.message).toContain('stop options has an unknown key "grace"');
    expect(engine.running).toBe(true);
    expect(await engine.record('acme', 'order:ord_1')).toMatchObject({
      state: 'failed',
      attempts: 1,
    });
    await w.close();
  });

  it('a bad staleAfterMs and an engine not running are refused with messages that say what to fix', async () => {
    const { w, engine } = await failedRecord();
    for (const staleAfterMs of [-1, 1.5, '60000']) {
      const e = await expectRefusal(
        () => engine.recoverIncomplete('acme', { staleAfterMs } as never),
        'INVALID_ARGUMENT',
        'staleAfterMs',
      );
      expect(e.message).toBe('staleAfterMs must be a non-negative integer number of milliseconds');
    }
    await engine.stop();
    const stopped = await expectRefusal(() => engine.recoverIncomplete('acme'), 'ENGINE_STOPPED');
    expect(stopped.message).toBe('recoverIncomplete: the trigger engine is stopping or stopped');
    const fresh = new TriggerEngine({ world: w, runner: { run: async () => null } });
    const early = await expectRefusal(() => fresh.recoverIncomplete('acme'), 'ENGINE_STOPPED');
    expect(early.message).toBe(
      'recoverIncomplete: the trigger engine has not been started; call engine.start() first',
    );
    await w.close();
  });
});

describe('recordRefusal', () => {
  const refusal: Refusal = {
    tenantId: 'acme',
    scopeId: 'store-1',
    sourceKind: 'webhook',
    provider: 'shop',
    triggerId: 'order.placed',
    bodyBytes: 12,
    error: new TwinError('BAD_SIGNATURE', 'signature does not match', {
      path: 'headers.x-signature',
    }),
  };

  it('a tenant context must be allowed to ingest for the refusal tenant; a refused call rejects and counts nothing', async () => {
    const { world: w, engine } = await harness();
    const twin = w.twin('triggers');
    const globex = tenantContext({ tenantId: 'globex', may: ['ingest'] });
    let call: Promise<void> | undefined;
    expect(() => (call = engine.recordRefusal(refusal, globex))).not.toThrow();
    const e = await expectRefusal(() => call, 'TENANT_FORBIDDEN', 'context.tenantId');
    expect(e.message).toContain('cannot record refused packets of tenant "acme"');
    const reader = await expectRefusal(
      () => engine.recordRefusal(refusal, tenantContext({ tenantId: 'acme', may: ['read'] })),
      'TENANT_FORBIDDEN',
      'context.may',
    );
    expect(reader.message).toContain('needed to record refused packets');
    expect(await twin.list(REFUSALS_TYPE)).toEqual([]);

    await engine.recordRefusal(refusal, tenantContext({ tenantId: 'acme', may: ['ingest'] }));
    const windows = await twin.list(REFUSALS_TYPE);
    expect(windows.map((r) => r.fields)).toMatchObject([
      { tenantId: 'acme', count: 1, byCode: { BAD_SIGNATURE: 1 }, bodyBytes: 12 },
    ]);
    await engine.stop();
    expect((await twin.list(REFUSALS_TYPE)).map((r) => r.fields.count)).toEqual([1]);
    await w.close();
  });
});

describe("ingest's replayGuard", () => {
  it('a malformed replayGuard is refused with the path of the bad field before anything is written; the bounds are accepted', async () => {
    const { world: w, engine, calls } = await harness();
    const keyPath = 'replayGuard.key';
    const windowPath = 'replayGuard.windowMs';
    const cases: [string, unknown, string][] = [
      ['null', null, keyPath],
      ['a string', 'sig-1', keyPath],
      ['a function', Object.assign(() => {}, { key: 'k', windowMs: 1_000 }), keyPath],
      ['a number key', { key: 42, windowMs: 1_000 }, keyPath],
      ['an empty key', { key: '', windowMs: 1_000 }, keyPath],
      ['a key over 512 characters', { key: 'k'.repeat(513), windowMs: 1_000 }, keyPath],
      ['no windowMs', { key: 'k' }, windowPath],
      ['a zero windowMs', { key: 'k', windowMs: 0 }, windowPath],
      ['a negative windowMs', { key: 'k', windowMs: -5 }, windowPath],
      ['a fractional windowMs', { key: 'k', windowMs: 1.5 }, windowPath],
    ];
    for (const [what, replayGuard, path] of cases) {
      const e = await expectRefusal(
        () => engine.ingest(envelope(), undefined, { replayGuard: replayGuard as never }),
        'INVALID_ARGUMENT',
        path,
      );
      expect(e.message, what).toBe(
        path === keyPath
          ? 'replayGuard.key must be a non-empty string of at most 512 characters naming the signed content'
          : 'replayGuard.windowMs must be a positive integer number of milliseconds',
      );
    }
    expect(await operations(w)).toEqual([]);
    expect(
      await engine.ingest(envelope(), undefined, {
        replayGuard: { key: 'k'.repeat(512), windowMs: 1 },
      }),
    ).toMatchObject({ status: 'triggered' });
    expect(calls).toHaveLength(1);
    await w.close();
  });
});
