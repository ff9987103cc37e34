// Deferred dispatch on every backend: a debounced burst runs once with the latest payload after
// the quiet period (or at maxWait); leading mode runs the first and absorbs the rest; a delay runs
// at its time; a concurrency gate lets `limit` run and drains its queue first come first served;
// drop cancels what finds no slot; a ttl expires what never ran; duplicates answer as dedupe does.
import { afterEach, describe, expect, it } from 'vitest';
import { backends } from '../../support/backends.js';
import type { DeferredAnswer, DuplicateAnswer } from '../../../src/triggers/answer.js';
import {
  DISPATCH_TYPE,
  GATE_TYPE,
  readDispatch,
  type DispatchFields,
} from '../../../src/triggers/deferred/dispatch-record.js';
import { RECEIPT_TYPE, RECORD_TYPE, recordId } from '../../../src/triggers/trigger-records.js';
import { expectRefusal } from '../support.js';
import { at, deferredHarness, event, T0, type DeferredHarness } from './support.js';

async function dispatch(h: DeferredHarness, id: string): Promise<DispatchFields> {
  return (await h.engine.twin.read((view) => readDispatch(view, id)))!;
}

for (const backendCase of backends) {
  describe(`deferred dispatch on ${backendCase.name}`, () => {
    let cleanups: (() => Promise<void> | void)[] = [];
    afterEach(async () => {
      for (const c of cleanups.reverse()) await c();
      cleanups = [];
    });
    async function open(...args: Parameters<typeof deferredHarness>): Promise<DeferredHarness> {
      const made = backendCase.create();
      const h = await deferredHarness(args[0], { ...args[1], backend: made.backend });
      cleanups.push(made.cleanup, () => h.world.close());
      return h;
    }

    it('a trailing debounce coalesces a burst into one run, after the quiet period, with the last payload', async () => {
      const h = await open([
        {
          triggerId: 'customer.updated',
          routineId: 'sync',
          dispatch: { debounce: { key: 'payload.customer', period: 5_000 } },
        },
      ]);
      const answers: DeferredAnswer[] = [];
      for (let i = 0; i < 5; i++) {
        if (i > 0) expect(await h.advance(1_000)).toEqual([]);
        answers.push(
          (await h.engine.ingest(event(i, { customer: 'cus_1', version: i }))) as DeferredAnswer,
        );
      }
      const id = answers[0]!.dispatchId;
      expect(answers.map((a) => [a.status, a.state, a.dispatchId, a.pings, a.dueAt])).toEqual(
        [0, 1, 2, 3, 4].map((i) => ['deferred', 'debounced', id, i + 1, at(i * 1_000 + 5_000)]),
      );
      expect(answers[4]).toMatchObject({ recordId: recordId('acme', 'evt_4'), runAt: at(9_000) });
      // Another key opens its own window.
      const other = (await h.engine.ingest(event(9, { customer: 'cus_2' }))) as DeferredAnswer;
      expect(other.dispatchId).not.toBe(id);

      expect(await h.advanceTo(at(8_999))).toEqual([]);
      expect(h.calls).toEqual([]);
      // Both windows end at 9 s (cus_2's opened at 4 s): two runs, one per key.
      const reports = await h.advanceTo(at(9_000));
      expect(reports.map((r) => r.outcome)).toEqual(['dispatched', 'dispatched']);
      expect(h.calls.filter((c) => (c.input as { customer: string }).customer === 'cus_1')).toEqual(
        [
          {
            at: at(9_000),
            routineId: 'sync',
            input: { customer: 'cus_1', version: 4 },
            runKey: 'evt_4',
            attempt: 1,
          },
        ],
      );
      const d = await dispatch(h, id);
      expect(d).toMatchObject({
        state: 'dispatched',
        pings: 5,
        runRecordId: recordId('acme', 'evt_4'),
        runAttempt: 1,
        runStatus: 'triggered',
        dueAt: null,
        owner: null,
        fence: 1,
      });
      // The run is the last envelope's record; the earlier keys' records point at the dispatch.
      expect(await h.engine.record('acme', 'evt_4')).toMatchObject({
        state: 'triggered',
        result: { synced: { customer: 'cus_1', version: 4 } },
      });
      expect(await h.engine.record('acme', 'evt_0')).toMatchObject({
        state: 'received',
        dispatchId: id,
      });
      await h.advance(60_000);
      expect(h.calls.map((c) => c.input)).toEqual(
        expect.arrayContaining([{ customer: 'cus_1', version: 4 }, { customer: 'cus_2' }]),
      );
      expect(h.calls).toHaveLength(2);
    });

    it('maxWait fires a window that keeps being pinged, and the next ping opens a new one', async () => {
      const h = await open([
        {
          triggerId: 'customer.updated',
          routineId: 'sync',
          dispatch: { debounce: { key: 'payload.customer', period: 3_000, maxWait: 10_000 } },
        },
      ]);
      const ids = new Set<string>();
      for (let i = 0; i <= 14; i++) {
        if (i > 0) await h.advance(1_000);
        const a = (await h.engine.ingest(event(i, { customer: 'c', n: i }))) as DeferredAnswer;
        ids.add(a.dispatchId);
      }
      expect(h.calls.map((c) => [c.at, c.input])).toEqual([[at(10_000), { customer: 'c', n: 9 }]]);
      expect(ids.size).toBe(2);
      await h.advance(3_000);
      expect(h.calls.map((c) => [c.at, c.input])).toEqual([
        [at(10_000), { customer: 'c', n: 9 }],
        [at(17_000), { customer: 'c', n: 14 }],
      ]);
    });

    it('a leading debounce runs the first ping at once and absorbs the rest of its window', async () => {
      const h = await open([
        {
          triggerId: 'customer.updated',
          routineId: 'sync',
          dispatch: { debounce: { key: 'payload.customer', period: 5_000, mode: 'leading' } },
        },
      ]);
      const first = (await h.engine.ingest(event(0, { customer: 'c', n: 0 }))) as DeferredAnswer;
      expect(first).toMatchObject({
        state: 'debounced',
        dueAt: T0,
        runAt: T0,
        pings: 1,
        intoRunId: null,
      });
      await h.runDue();
      expect(h.calls.map((c) => c.input)).toEqual([{ customer: 'c', n: 0 }]);
      await h.advance(2_000);
      const absorbed = (await h.engine.ingest(event(1, { customer: 'c', n: 1 }))) as DeferredAnswer;
      expect(absorbed).toMatchObject({
        status: 'deferred',
        dispatchId: first.dispatchId,
        state: 'dispatched',
        pings: 2,
        // the run the window's first ping started: the absorbed ping went into it
        intoRunId: first.recordId,
      });
      // The window closes 5 s after the last ping: a ping at 6.5 s is still absorbed.
      await h.advance(4_500);
      expect(await h.engine.ingest(event(2, { customer: 'c', n: 2 }))).toMatchObject({
        dispatchId: first.dispatchId,
        pings: 3,
      });
      await h.advance(5_000);
      const next = (await h.engine.ingest(event(3, { customer: 'c', n: 3 }))) as DeferredAnswer;
      expect(next.dispatchId).not.toBe(first.dispatchId);
      expect(next.intoRunId).toBeNull();
      await h.runDue();
      expect(h.calls.map((c) => [c.at, c.input])).toEqual([
        [T0, { customer: 'c', n: 0 }],
        [at(11_500), { customer: 'c', n: 3 }],
      ]);
    });

    it('a delay runs at its time; until a time runs then, and at once when that time has passed', async () => {
      const h = await open([
        { triggerId: 'reminder', routineId: 'sync', dispatch: { delay: 3_600_000 } },
      ]);
      const a = (await h.engine.ingest(
        event(1, { remind: 'a' }, { triggerId: 'reminder' }),
      )) as DeferredAnswer;
      expect(a).toMatchObject({ state: 'delayed', dueAt: at(3_600_000), expiresAt: null });
      const b = (await h.engine.ingest(
        event(2, { remind: 'b' }, { triggerId: 'reminder' }),
        undefined,
        {
          dispatch: { delay: { until: at(60_000) } },
        },
      )) as DeferredAnswer;
      expect(b).toMatchObject({ state: 'delayed', dueAt: at(60_000) });
      await h.advance(30_000);
      const c = (await h.engine.ingest(
        event(3, { remind: 'c' }, { triggerId: 'reminder' }),
        undefined,
        {
          dispatch: { delay: { until: T0 } },
        },
      )) as DeferredAnswer;
      expect(c).toMatchObject({ state: 'delayed', dueAt: at(30_000) });
      await h.advance(2 * 3_600_000);
      expect(h.calls.map((x) => [x.at, x.input])).toEqual([
        [at(30_000), { remind: 'c' }],
        [at(60_000), { remind: 'b' }],
        [at(3_600_000), { remind: 'a' }],
      ]);
    });

    it('a concurrency gate runs `limit` at once and drains its queue first come, first served', async () => {
      const h = await open([
        {
          triggerId: 'build',
          routineId: 'sync',
          dispatch: { concurrency: { limit: 2, key: 'payload.repo' } },
        },
      ]);
      const answers: DeferredAnswer[] = [];
      for (let i = 0; i < 5; i++)
        answers.push(
          (await h.engine.ingest(
            event(i, { repo: 'r1', n: i }, { triggerId: 'build' }),
          )) as DeferredAnswer,
        );
      answers.push(
        (await h.engine.ingest(
          event(9, { repo: 'r2', n: 9 }, { triggerId: 'build' }),
        )) as DeferredAnswer,
      );
      expect(answers.map((a) => [a.state, a.dueAt])).toEqual(
        Array.from({ length: 6 }, () => ['queued', T0]),
      );
      // One step at a time, so the gate is seen between steps.
      const gate = async (key: string) =>
        (await h.engine.twin.list(GATE_TYPE)).find((g) => g.fields.key === key)!.fields;
      const ids = answers.map((a) => a.dispatchId);
      for (const id of ids) await h.work.step(id);
      expect(await gate('r1')).toMatchObject({
        limit: 2,
        running: [ids[0], ids[1]],
        head: 2,
        tail: 5,
      });
      expect(await gate('r2')).toMatchObject({ running: [ids[5]], head: 1, tail: 1 });
      const states = async () => Promise.all(ids.map(async (id) => (await dispatch(h, id)).state));
      expect(await states()).toEqual([
        'dispatched',
        'dispatched',
        'queued',
        'queued',
        'queued',
        'dispatched',
      ]);
      // Blocked ones leave the due index until a slot frees; dispatched ones come back when
      // their claim's lease could have lapsed, to settle.
      expect((await dispatch(h, ids[2]!)).dueAt).toBe(null);
      expect(await h.work.due(h.clock.now(), 10)).toEqual([]);
      expect((await dispatch(h, ids[0]!)).dueAt).toBe(at(30_000));
      // Settling the first run frees its slot and nudges the head of the queue.
      await h.work.execute({ id: ids[0]!, ...(await claimOf(h, ids[0]!)) });
      expect(await gate('r1')).toMatchObject({ running: [ids[1]], head: 2 });
      expect((await dispatch(h, ids[2]!)).dueAt).toBe(T0);
      expect((await dispatch(h, ids[3]!)).dueAt).toBe(null);
      // The other claims run too (as their workers would), then the queue drains in order.
      for (const id of [ids[1]!, ids[5]!]) await h.work.execute({ id, ...(await claimOf(h, id)) });
      await h.runDue();
      expect(await states()).toEqual(Array.from({ length: 6 }, () => 'dispatched'));
      expect(h.calls.map((c) => (c.input as { n: number }).n)).toEqual([0, 1, 9, 2, 3, 4]);
      expect(await gate('r1')).toMatchObject({ running: [], head: 5, tail: 5 });
    });

    it('onLimit "drop" cancels what finds no free slot', async () => {
      const h = await open([
        {
          triggerId: 'build',
          routineId: 'sync',
          dispatch: { concurrency: { limit: 1, onLimit: 'drop' } },
        },
      ]);
      const ids: string[] = [];
      for (let i = 0; i < 3; i++)
        ids.push(
          ((await h.engine.ingest(event(i, { n: i }, { triggerId: 'build' }))) as DeferredAnswer)
            .dispatchId,
        );
      for (const id of ids) await h.work.step(id);
      expect((await dispatch(h, ids[0]!)).state).toBe('dispatched');
      await h.work.execute({ id: ids[0]!, ...(await claimOf(h, ids[0]!)) });
      for (const id of ids.slice(1))
        expect(await dispatch(h, id)).toMatchObject({
          state: 'cancelled',
          reason: 'concurrency_limit',
          dueAt: null,
        });
      await h.runDue();
      expect(h.calls.map((c) => c.input)).toEqual([{ n: 0 }]);
      // With the slot free again, the next one runs.
      const later = (await h.engine.ingest(
        event(7, { n: 7 }, { triggerId: 'build' }),
      )) as DeferredAnswer;
      await h.runDue();
      expect((await dispatch(h, later.dispatchId)).state).toBe('dispatched');
    });

    it('a ttl expires what never ran — a delay the worker missed, a queue that never moved', async () => {
      const h = await open([
        { triggerId: 'reminder', routineId: 'sync', dispatch: { delay: 1_000, ttl: 5_000 } },
        {
          triggerId: 'build',
          routineId: 'sync',
          dispatch: { concurrency: { limit: 1 }, ttl: 10_000 },
        },
      ]);
      const late = (await h.engine.ingest(
        event(1, {}, { triggerId: 'reminder' }),
      )) as DeferredAnswer;
      expect(late.expiresAt).toBe(at(5_000));
      // The worker was down until after its expiry.
      await h.clock.set(Date.parse(at(6_000)));
      expect((await h.runDue()).map((r) => r.outcome)).toEqual(['expired']);
      expect(await dispatch(h, late.dispatchId)).toMatchObject({
        state: 'expired',
        reason: 'ttl',
        endedAt: at(6_000),
        dueAt: null,
      });
      expect(h.calls).toEqual([]);
      // A gate whose one slot a run holds (its process gone, say): the one behind it expires.
      const holder = (await h.engine.ingest(
        event(2, {}, { triggerId: 'build' }),
      )) as DeferredAnswer;
      const waiting = (await h.engine.ingest(
        event(3, {}, { triggerId: 'build' }),
      )) as DeferredAnswer;
      await h.work.step(holder.dispatchId);
      await h.work.step(waiting.dispatchId);
      expect(await dispatch(h, waiting.dispatchId)).toMatchObject({
        state: 'queued',
        dueAt: at(16_000),
      });
      await h.clock.set(Date.parse(at(16_000)));
      const outcomes = (await h.runDue()).map((r) => r.outcome);
      expect(outcomes).toContain('expired');
      expect((await dispatch(h, waiting.dispatchId)).state).toBe('expired');
      expect(h.calls).toEqual([]);
    });

    it('a duplicate of a key answers deferred while it waits, then as dedupe does; another payload conflicts', async () => {
      const h = await open([
        {
          triggerId: 'customer.updated',
          routineId: 'sync',
          dispatch: { debounce: { key: 'payload.customer', period: 1_000 } },
        },
      ]);
      const a0 = (await h.engine.ingest(event(0, { customer: 'c', n: 0 }))) as DeferredAnswer;
      const a1 = (await h.engine.ingest(event(1, { customer: 'c', n: 1 }))) as DeferredAnswer;
      const again = (await h.engine.ingest(event(0, { customer: 'c', n: 0 }))) as DeferredAnswer;
      expect(again).toEqual({ ...a1, dedupeKey: 'evt_0', recordId: a0.recordId });
      await expectRefusal(
        () => h.engine.ingest(event(0, { customer: 'c', n: 99 })),
        'PAYLOAD_CONFLICT',
        'payload',
      );
      await h.advance(1_000);
      const dup0 = (await h.engine.ingest(event(0, { customer: 'c', n: 0 }))) as DuplicateAnswer;
      const dup1 = (await h.engine.ingest(event(1, { customer: 'c', n: 1 }))) as DuplicateAnswer;
      expect(dup0).toEqual({
        status: 'duplicate',
        tenantId: 'acme',
        triggerId: 'customer.updated',
        dedupeKey: 'evt_0',
        recordId: a0.recordId,
        scheduledAt: T0,
        original: 'triggered',
        routineResult: { synced: { customer: 'c', n: 1 } },
        dispatchId: a0.dispatchId,
      });
      // The key that ran is the run's own record: answered exactly as dedupe answers today.
      expect(dup1).toMatchObject({ status: 'duplicate', original: 'triggered' });
      expect(h.calls).toHaveLength(1);
      // Only the conflict is a receipt; the repeats are counted on the records they repeat.
      const receipts = (await h.engine.twin.list(RECEIPT_TYPE)).map((r) => r.fields.status);
      expect(receipts).toEqual(['refused']);
      await h.engine.stop();
      const repeats = async (id: string) =>
        (await h.engine.twin.get(RECORD_TYPE, id))?.fields.repeats;
      expect(await repeats(a0.recordId)).toMatchObject({ count: 2, byKind: { duplicate: 2 } });
      expect(await repeats(a1.recordId)).toMatchObject({ count: 1, byKind: { duplicate: 1 } });
    });

    it('cancel: a waiting dispatch never runs, cancelling twice changes nothing, a run one is refused', async () => {
      const h = await open([
        { triggerId: 'reminder', routineId: 'sync', dispatch: { delay: 1_000 } },
        { triggerId: 'build', routineId: 'sync', dispatch: { concurrency: { limit: 1 } } },
      ]);
      const { cancelDispatch } = await import('../../../src/triggers/deferred/operations.js');
      const a = (await h.engine.ingest(event(1, {}, { triggerId: 'reminder' }))) as DeferredAnswer;
      expect(await cancelDispatch(h.world, a.dispatchId)).toMatchObject({
        changed: true,
        dispatch: { state: 'cancelled', reason: 'cancelled', dueAt: null },
      });
      expect(await cancelDispatch(h.world, a.dispatchId)).toMatchObject({ changed: false });
      await h.advance(5_000);
      expect(h.calls).toEqual([]);
      // A duplicate of its key hears that it was cancelled.
      expect(await h.engine.ingest(event(1, {}, { triggerId: 'reminder' }))).toMatchObject({
        status: 'deferred',
        state: 'cancelled',
      });
      const b = (await h.engine.ingest(event(2, {}, { triggerId: 'reminder' }))) as DeferredAnswer;
      await h.advance(1_000);
      await expectRefusal(
        () => cancelDispatch(h.world, b.dispatchId),
        'DISPATCH_NOT_CANCELLABLE',
        'id',
      );
      await expectRefusal(() => cancelDispatch(h.world, 'dsp_nope'), 'UNKNOWN_DISPATCH', 'id');
      await expectRefusal(
        () => cancelDispatch(h.world, `dsp_${'0'.repeat(32)}`),
        'UNKNOWN_DISPATCH',
        'id',
      );
      // Cancelling the head of a gate's queue passes its place on.
      const ids: string[] = [];
      for (let i = 10; i < 13; i++)
        ids.push(
          ((await h.engine.ingest(event(i, { n: i }, { triggerId: 'build' }))) as DeferredAnswer)
            .dispatchId,
        );
      for (const id of ids) await h.work.step(id);
      await cancelDispatch(h.world, ids[1]!);
      expect((await dispatch(h, ids[2]!)).dueAt).toBe(null);
      await h.work.execute({ id: ids[0]!, ...(await claimOf(h, ids[0]!)) });
      expect((await dispatch(h, ids[2]!)).dueAt).toBe(at(6_000));
      await h.runDue();
      expect((await dispatch(h, ids[2]!)).state).toBe('dispatched');
      expect(h.calls.map((c) => c.input)).toEqual([{}, { n: 10 }, { n: 12 }]);
    });

    it('every dispatch carries its tenant, and its records and answers say which trigger made it', async () => {
      const h = await open([
        { triggerId: 'reminder', routineId: 'sync', dispatch: { delay: 1_000 } },
      ]);
      await h.engine.ingest(event(1, {}, { triggerId: 'reminder', tenantId: 'globex' }));
      const [d] = await h.engine.twin.list(DISPATCH_TYPE);
      expect(d!.fields).toMatchObject({
        tenantId: 'globex',
        triggerId: 'reminder',
        routineId: 'sync',
        listKeys: ['state:delayed', 'tenant:globex/delayed'],
      });
      expect((await h.engine.twin.list(RECORD_TYPE))[0]!.fields).toMatchObject({
        dispatchId: d!.id,
        state: 'received',
      });
    });
  });
}

/** The claim of a dispatch stepped but not run yet: its run as recorded. */
async function claimOf(h: DeferredHarness, id: string) {
  const d = await dispatch(h, id);
  const record = (await h.engine.twin.read((view) => view.get(RECORD_TYPE, d.runRecordId!)))!
    .fields as unknown as {
    envelope: import('../../../src/triggers/envelope.js').TriggerEnvelope;
    attempts: number;
    runKey: string;
  };
  return {
    run: {
      routineId: d.routineId,
      runKey: record.runKey,
      attempt: record.attempts,
      recordId: d.runRecordId!,
      envelope: record.envelope,
    },
    scheduledAt: record.envelope.scheduledAt,
  };
}
