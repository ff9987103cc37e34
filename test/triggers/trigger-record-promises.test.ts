// The promises of the trigger record decisions, each checked on a real world: a repeated key names
// the field that differs, a lost claim keeps what its run saw without moving the record, a
// heartbeat only extends a claim still held, a young run is never taken over, and a refused
// envelope is kept as a receipt with its identity.
import { afterEach, describe, expect, it } from 'vitest';
import { skip } from '../../src/world/decision.js';
import type { ReadView } from '../../src/state/read-view.js';
import {
  receiptId,
  RECEIPT_TYPE,
  receiptOf,
  recordId,
  triggerRecordOf,
  RECORD_TYPE,
  type RecordFields,
} from '../../src/triggers/trigger-records.js';
import { refusalWrite } from '../../src/triggers/receipts.js';
import {
  decideFinish,
  decideRecover,
  decideRunHeartbeat,
  runClaimFree,
} from '../../src/triggers/runs.js';
import { decideReceive } from '../../src/triggers/receive.js';
import type { RunStartInfo } from '../../src/triggers/runner.js';
import { TwinError } from '../../src/errors.js';
import { TriggerEngine } from '../../src/triggers/engine/engine.js';
import { envelope, expectRefusal, harness, T0, type Harness } from './support.js';

const open: Harness[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((h) => h.world.close()));
});

async function started(): Promise<Harness> {
  const h = await harness();
  open.push(h);
  h.engine.registerRoute({ triggerId: 'order.shipped', routineId: 'fulfil', buildInput: () => 1 });
  return h;
}

/** What a decide answers against the trigger twin's current state, committing nothing. */
async function peek<T>(h: Harness, decide: (view: ReadView) => T): Promise<T> {
  let out: T | undefined;
  await h.world.twin('triggers').applyAtomic((view) => {
    out = decide(view);
    return skip();
  });
  return out as T;
}

async function receipts(h: Harness) {
  return (await h.world.twin('triggers').list(RECEIPT_TYPE)).map(receiptOf);
}

async function record(h: Harness, key = 'order:ord_1'): Promise<RecordFields> {
  const r = await h.world.twin('triggers').get(RECORD_TYPE, recordId('acme', key));
  return triggerRecordOf(r!);
}

describe('a repeated key with another event names the field that differs', () => {
  const cases = [
    { name: 'scopeId', change: { scopeId: 'store-2' }, path: 'scopeId' },
    {
      name: 'source kind',
      change: { source: { kind: 'webhook', provider: 'shop' } },
      path: 'source',
    },
    {
      name: 'source provider',
      change: { source: { kind: 'custom', provider: 'other' } },
      path: 'source',
    },
    { name: 'triggerId', change: { triggerId: 'order.shipped' }, path: 'triggerId' },
    { name: 'payload', change: { payload: { order: 'ord_1', total: 1 } }, path: 'payload' },
  ] as const;
  for (const c of cases) {
    it(`${c.name}: PAYLOAD_CONFLICT at "${c.path}", recorded as a refused receipt`, async () => {
      const h = await started();
      await h.engine.ingest(envelope());
      const e = await expectRefusal(
        () => h.engine.ingest(envelope(c.change as never)),
        'PAYLOAD_CONFLICT',
        c.path,
      );
      expect(e.message).toContain(`another ${c.path};`);
      expect(e.details).toEqual({
        recordId: recordId('acme', 'order:ord_1'),
        dedupeKey: 'order:ord_1',
        differs: c.path,
      });
      const refused = (await receipts(h)).filter((r) => r.status === 'refused');
      expect(refused).toHaveLength(1);
      expect(refused[0]).toMatchObject({
        code: 'PAYLOAD_CONFLICT',
        path: c.path,
        message: e.message,
        recordId: recordId('acme', 'order:ord_1'),
        dedupeKey: 'order:ord_1',
      });
      const ops = (await h.world.twin('triggers').entries()).map((x) => x.operation);
      expect(ops.at(-1)).toBe('trigger.conflict');
      expect(h.calls).toHaveLength(1);
    });
  }

  it('the same event again is a duplicate, not a conflict', async () => {
    const h = await started();
    await h.engine.ingest(envelope());
    const answer = await h.engine.ingest(envelope());
    expect(answer.status).toBe('duplicate');
    // counted on the record it repeats, never a receipt of its own
    expect(await receipts(h)).toEqual([]);
    expect((await record(h)) as unknown).toMatchObject({ repeats: { count: 1 } });
  });
});

describe('a finish from a claim no longer current keeps its observation and moves nothing', () => {
  async function finished(h: Harness): Promise<RunStartInfo> {
    await h.engine.ingest(envelope());
    const rec = await record(h);
    return {
      routineId: rec.routineId,
      runKey: rec.runKey,
      attempt: 1,
      recordId: recordId('acme', 'order:ord_1'),
      envelope: rec.envelope,
    };
  }

  it('a finished record: superseded, with what the late run saw and who held it', async () => {
    const h = await started();
    const run = await finished(h);
    const before = await record(h);
    await h.world
      .twin('triggers')
      .applyAtomic((view) =>
        decideFinish(view, T0, run, { ok: false, error: 'ROUTINE_FAILED' }, undefined, 'wrk_late'),
      );
    const after = (await h.world.twin('triggers').get(RECORD_TYPE, run.recordId))!.fields;
    expect(after['state']).toBe('triggered');
    expect(after['result']).toEqual(before.result);
    expect(after['lastSupersededAttempt']).toBe(1);
    expect(after['lateObservation']).toEqual({
      attempt: 1,
      owner: 'wrk_late',
      observedAt: T0,
      ok: false,
      result: null,
      error: 'ROUTINE_FAILED',
    });
    const ops = (await h.world.twin('triggers').entries()).map((x) => x.operation);
    expect(ops.at(-1)).toBe('trigger.finish_superseded');
  });

  it('a successful late run keeps its result; an unknown record is held by nobody', async () => {
    const h = await started();
    const run = await finished(h);
    const answer = await peek(h, (view) =>
      decideFinish(view, T0, run, { ok: true, result: { late: true } }, undefined),
    );
    expect(answer).toMatchObject({ kind: 'commit', result: { current: false, heldBy: null } });
    const write = (answer as unknown as { writes: { fields: Record<string, unknown> }[] })
      .writes[0]!;
    expect(write.fields['lateObservation']).toEqual({
      attempt: 1,
      owner: null,
      observedAt: T0,
      ok: true,
      result: { late: true },
      error: null,
    });
    const gone = await peek(h, (view) =>
      decideFinish(view, T0, { ...run, recordId: 'trg_none' }, { ok: true, result: 1 }, undefined),
    );
    expect((gone as { result: unknown }).result).toEqual({ current: false, heldBy: null });
  });

  it("a processing record's finish from another owner or attempt is superseded; its own is not", async () => {
    const h = await started();
    const run = await finished(h);
    const owner = h.engine.claimant.owner;
    // Put the record back in flight as attempt 2 of this engine's owner.
    await h.world.twin('triggers').applyWrite({
      operation: 'trigger.start',
      subjectType: RECORD_TYPE,
      subjectId: run.recordId,
      fields: { state: 'processing', attempts: 2, currentAttempt: 2, owner },
      actor: 'system',
    });
    const at2 = { ...run, attempt: 2 };
    const result = (r: unknown) => (r as { result: unknown }).result;
    const ok = { ok: true, result: 1 } as const;
    expect(result(await peek(h, (v) => decideFinish(v, T0, run, ok, undefined, owner)))).toEqual({
      current: false,
      heldBy: owner,
    });
    expect(
      result(await peek(h, (v) => decideFinish(v, T0, at2, ok, undefined, 'wrk_other'))),
    ).toEqual({ current: false, heldBy: owner });
    expect(result(await peek(h, (v) => decideFinish(v, T0, at2, ok, undefined, owner)))).toEqual({
      current: true,
    });
    expect(result(await peek(h, (v) => decideFinish(v, T0, at2, ok, undefined)))).toEqual({
      current: true,
    });
  });
});

describe('a heartbeat extends only a claim still held', () => {
  it('by its owner and attempt, while processing; never otherwise, writing nothing', async () => {
    const h = await started();
    await h.engine.ingest(envelope());
    const id = recordId('acme', 'order:ord_1');
    const owner = h.engine.claimant.owner;
    await h.world.twin('triggers').applyWrite({
      operation: 'trigger.start',
      subjectType: RECORD_TYPE,
      subjectId: id,
      fields: { state: 'processing', attempts: 2, currentAttempt: 2, owner },
      actor: 'system',
    });
    const rec = await record(h);
    const run: RunStartInfo = {
      routineId: 'fulfil',
      runKey: rec.runKey,
      attempt: 2,
      recordId: id,
      envelope: rec.envelope,
    };
    const claimant = { owner, leaseMs: 30_000 };
    const beat = (r: RunStartInfo, c = claimant) =>
      peek(h, (v) => decideRunHeartbeat(v, '2026-03-01T12:00:10.000Z', r, c));
    expect(await beat({ ...run, recordId: 'trg_none' })).toEqual({ kind: 'skip', result: false });
    expect(await beat({ ...run, attempt: 1 })).toEqual({ kind: 'skip', result: false });
    expect(await beat(run, { owner: 'wrk_other', leaseMs: 30_000 })).toEqual({
      kind: 'skip',
      result: false,
    });
    const held = (await beat(run)) as { kind: string; result: boolean; writes: unknown[] };
    expect(held.kind).toBe('commit');
    expect(held.result).toBe(true);
    expect(held.writes).toEqual([
      expect.objectContaining({
        operation: 'trigger.heartbeat',
        subjectId: id,
        fields: expect.objectContaining({ leaseUntil: '2026-03-01T12:00:40.000Z' }),
      }),
    ]);
    await h.world.twin('triggers').applyWrite({
      operation: 'trigger.finish',
      subjectType: RECORD_TYPE,
      subjectId: id,
      fields: { state: 'triggered', currentAttempt: 2 },
      actor: 'system',
    });
    expect(await beat(run)).toEqual({ kind: 'skip', result: false });
  });
});

describe('a run is taken over only when it is old enough and its lease lapsed', () => {
  const base = {
    state: 'processing',
    startedAt: '2026-03-01T12:00:00.000Z',
    owner: null,
    leaseUntil: null,
  } as unknown as RecordFields;
  const now = Date.parse('2026-03-01T13:00:00.000Z');

  it('started after the stale mark: not free; at or before it: free', () => {
    expect(runClaimFree(base, now, '2026-03-01T11:59:59.999Z')).toBe(false);
    expect(runClaimFree(base, now, '2026-03-01T12:00:00.000Z')).toBe(true);
    expect(runClaimFree(base, now, '2026-03-01T12:00:00.001Z')).toBe(true);
    expect(runClaimFree({ ...base, startedAt: null }, now, '2026-03-01T11:00:00.000Z')).toBe(true);
  });

  it('an owner whose lease has not lapsed keeps it, however old the run', () => {
    const held = { ...base, owner: 'wrk_a', leaseUntil: '2026-03-01T13:00:01.000Z', fence: 1 };
    expect(runClaimFree(held, now, '2026-03-01T12:30:00.000Z')).toBe(false);
    const lapsed = { ...held, leaseUntil: '2026-03-01T12:59:59.000Z' };
    expect(runClaimFree(lapsed, now, '2026-03-01T12:30:00.000Z')).toBe(true);
  });
});

describe('a refused envelope is kept as a receipt with its identity, never its body', () => {
  it('every field given is kept; the record id follows the key', async () => {
    const h = await started();
    const error = new TwinError('UNKNOWN_TRIGGER', 'no route', { path: 'triggerId' });
    const write = await peek(h, (view) =>
      refusalWrite(view, T0, {
        tenantId: 'acme',
        scopeId: 's',
        sourceKind: 'webhook',
        provider: 'github',
        triggerId: 'push',
        eventId: 'e1',
        dedupeKey: 'k1',
        payloadHash: 'h1',
        bodyBytes: 12,
        error,
      }),
    );
    expect(write.operation).toBe('trigger.refuse');
    expect(write.subjectType).toBe(RECEIPT_TYPE);
    expect(write.subjectId).toMatch(/^rcpt_0+\d+$/);
    expect(write.fields).toEqual({
      status: 'refused',
      tenantId: 'acme',
      scopeId: 's',
      sourceKind: 'webhook',
      provider: 'github',
      triggerId: 'push',
      eventId: 'e1',
      dedupeKey: 'k1',
      payloadHash: 'h1',
      recordId: recordId('acme', 'k1'),
      code: 'UNKNOWN_TRIGGER',
      path: 'triggerId',
      message: 'no route',
      bodyBytes: 12,
      receivedAt: T0,
      receivedSeq: (await h.world.twin('triggers').head()) + 1,
    });
  });

  it('what the sender did not give is null, with no record id without a key', async () => {
    const h = await started();
    const error = new TwinError('INVALID_ENVELOPE', 'bad');
    const write = await peek(h, (view) => refusalWrite(view, T0, { tenantId: 'acme', error }));
    expect(write.fields).toMatchObject({
      scopeId: null,
      sourceKind: null,
      provider: null,
      triggerId: null,
      eventId: null,
      dedupeKey: null,
      payloadHash: null,
      recordId: null,
      path: null,
      bodyBytes: null,
    });
  });
});

describe('every claim says why it was made, and recovery claims only what it saw', () => {
  it('a first run starts as "first", a retried delivery of a failed run as "retry", attempt 2', async () => {
    const h = await started();
    let fail = true;
    h.runner.register('flaky', async () => {
      if (fail) throw new Error('boom');
      return 'ok';
    });
    h.engine.registerRoute({ triggerId: 'order.flaky', routineId: 'flaky', buildInput: () => 1 });
    const env = envelope({ triggerId: 'order.flaky' });
    await expectRefusal(() => h.engine.ingest(env), 'ROUTINE_FAILED');
    fail = false;
    expect(await h.engine.ingest(env)).toMatchObject({ status: 'triggered' });
    const starts = (await h.world.twin('triggers').entries()).filter(
      (e) => e.operation === 'trigger.start',
    );
    expect(starts.map((e) => [e.fields?.['startReason'], e.fields?.['attempts']])).toEqual([
      ['first', 1],
      ['retry', 2],
    ]);
  });

  it('recovery re-claims a failed record only in the state and attempt it saw', async () => {
    const h = await started();
    h.runner.register('broken', async () => {
      throw new Error('boom');
    });
    h.engine.registerRoute({ triggerId: 'order.broken', routineId: 'broken', buildInput: () => 1 });
    await expectRefusal(
      () => h.engine.ingest(envelope({ triggerId: 'order.broken' })),
      'ROUTINE_FAILED',
    );
    const id = recordId('acme', 'order:ord_1');
    const claimant = { owner: 'wrk_r', leaseMs: 30_000 };
    const recover = (rid: string, seen: { state: 'processing' | 'failed'; attempts: number }) =>
      peek(h, (v) => decideRecover(v, T0, rid, seen, 'broken', T0, undefined, claimant));
    expect(await recover('trg_none', { state: 'failed', attempts: 1 })).toEqual({
      kind: 'skip',
      result: undefined,
    });
    expect(await recover(id, { state: 'processing', attempts: 1 })).toMatchObject({
      kind: 'skip',
    });
    expect(await recover(id, { state: 'failed', attempts: 2 })).toMatchObject({ kind: 'skip' });
    const claimed = (await recover(id, { state: 'failed', attempts: 1 })) as unknown as {
      kind: string;
      result: RunStartInfo;
      writes: { fields: Record<string, unknown> }[];
    };
    expect(claimed.kind).toBe('commit');
    expect(claimed.result).toMatchObject({ attempt: 2, recordId: id, routineId: 'broken' });
    expect(claimed.writes[0]!.fields).toMatchObject({
      startReason: 'recovery',
      attempts: 2,
      owner: 'wrk_r',
      leaseUntil: '2026-03-01T12:00:30.000Z',
    });
  });
});

describe('receipts are named after the seq of the entry that writes them', () => {
  it("the receipt id and receivedSeq are that entry's seq; a new record holds its own", async () => {
    const h = await started();
    await h.engine.ingest(envelope());
    await expect(h.engine.ingest(envelope({ payload: { other: true } }))).rejects.toMatchObject({
      code: 'PAYLOAD_CONFLICT',
    });
    const entries = await h.world.twin('triggers').entries();
    const receive = entries.find((e) => e.operation === 'trigger.receive')!;
    expect(receive.fields?.['receivedSeq']).toBe(receive.seq);
    expect(receive.fields?.['state']).toBe('received');
    const dup = entries.find((e) => e.operation === 'trigger.conflict')!;
    expect(dup.subjectId).toBe(receiptId(dup.seq));
    expect(receiptId(7)).toBe('rcpt_000000000007');
    expect(dup.fields?.['receivedSeq']).toBe(dup.seq);
  });

  it('a claim with nothing to record carries no projection', async () => {
    const h = await started();
    const world = h.world;
    const engine = new TriggerEngine({ world, runner: { run: async () => 'done' }, twin: 'bare' });
    engine.registerRoute({ triggerId: 'order.placed', routineId: 'r', buildInput: () => 1 });
    await engine.start();
    await engine.ingest(envelope());
    const start = (await world.twin('bare').entries()).find((e) => e.operation === 'trigger.start');
    expect(start).toBeDefined();
    expect(start!.projection).toBeUndefined();
    await engine.stop();
  });
});

describe('a record written by hand is read as it stands', () => {
  it('a record still "received" answers in_progress at attempt 0', async () => {
    const h = await started();
    await h.engine.ingest(envelope());
    await h.world.twin('triggers').applyWrite({
      operation: 'trigger.reset',
      subjectType: RECORD_TYPE,
      subjectId: recordId('acme', 'order:ord_1'),
      fields: { state: 'received', attempts: 0, currentAttempt: null },
      actor: 'system',
    });
    expect(await h.engine.ingest(envelope())).toMatchObject({
      status: 'in_progress',
      attempt: 0,
    });
  });

  it('a record holding another key under this id is refused, never merged', async () => {
    const h = await started();
    await h.engine.ingest(envelope());
    for (const other of [{ tenantId: 'beta' }, { dedupeKey: 'order:other' }]) {
      const claimant = { owner: 'wrk_x', leaseMs: 30_000 };
      const route = { routineId: 'fulfil', filtered: false };
      const env = envelope(other);
      const e = await expectRefusal(
        () =>
          peek(h, (v) => {
            const fake: ReadView = {
              ...v,
              head: v.head,
              get: (type, id) =>
                type === RECORD_TYPE && id === recordId(env.tenantId, env.dedupeKey)
                  ? v.get(RECORD_TYPE, recordId('acme', 'order:ord_1'))
                  : v.get(type, id),
              list: (t) => v.list(t),
              lookup: (t, i, k) => v.lookup(t, i, k),
              lookupUpTo: (t, i, k, l) => v.lookupUpTo(t, i, k, l),
            };
            return decideReceive(fake, T0, env, route, undefined, claimant);
          }),
        'PAYLOAD_CONFLICT',
        'dedupeKey',
      );
      expect(e.message).toContain('holds another tenant or key; refusing to merge');
    }
  });
});
