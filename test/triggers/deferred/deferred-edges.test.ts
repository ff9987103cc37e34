// The edges of deferred dispatch: a route filter still answers `filtered` (nothing deferred); a
// replayed packet under another delivery id is a duplicate, not a ping; a routine that throws
// settles its dispatch `failed` and frees its slot, a resend of the run's key runs it again as
// today; key functions, and envelopes without the key path, which share the empty key.
import { describe, expect, it } from 'vitest';
import type { DeferredAnswer } from '../../../src/triggers/answer.js';
import { DISPATCH_TYPE, readDispatch } from '../../../src/triggers/deferred/dispatch-record.js';
import { deferredHarness, event } from './support.js';

describe('deferred dispatch at its edges', () => {
  it('a filtered envelope is answered filtered and defers nothing', async () => {
    const h = await deferredHarness([
      {
        triggerId: 'customer.updated',
        routineId: 'sync',
        filter: (e) => (e.payload as { keep?: boolean }).keep === true,
        dispatch: { delay: 1_000 },
      },
    ]);
    expect(await h.engine.ingest(event(1, { keep: false }))).toMatchObject({ status: 'filtered' });
    expect(await h.engine.ingest(event(2, { keep: true }))).toMatchObject({ status: 'deferred' });
    expect(await h.engine.twin.list(DISPATCH_TYPE)).toHaveLength(1);
    await h.world.close();
  });

  it('a replay of signed content under another delivery id is a duplicate, not another ping', async () => {
    const h = await deferredHarness([
      {
        triggerId: 'customer.updated',
        routineId: 'sync',
        dispatch: { debounce: { key: 'payload.customer', period: 1_000 } },
      },
    ]);
    const guard = { replayGuard: { key: 'body:abc', windowMs: 60_000 } };
    const first = (await h.engine.ingest(
      event(1, { customer: 'c' }),
      undefined,
      guard,
    )) as DeferredAnswer;
    expect(first.status).toBe('deferred');
    expect(
      await h.engine.ingest(
        event(2, { customer: 'c' }, { dedupeKey: 'other-id' }),
        undefined,
        guard,
      ),
    ).toMatchObject({ status: 'duplicate', replayOf: 'evt_1', original: 'in_progress' });
    const d = await h.engine.twin.read((v) => readDispatch(v, first.dispatchId));
    expect(d!.pings).toBe(1);
    await h.world.close();
  });

  it('a routine that throws settles its dispatch failed and frees the slot; a resend of the run’s key runs it again', async () => {
    let fail = true;
    const h = await deferredHarness(
      [
        {
          triggerId: 'build',
          routineId: 'sync',
          dispatch: { debounce: { key: 'payload.repo', period: 1_000 }, concurrency: { limit: 1 } },
        },
      ],
      {
        routine: (input) => {
          if (fail) throw new Error('broken build');
          return { built: input };
        },
      },
    );
    const a = (await h.engine.ingest(
      event(1, { repo: 'r', n: 1 }, { triggerId: 'build' }),
    )) as DeferredAnswer;
    await h.engine.ingest(event(2, { repo: 'r', n: 2 }, { triggerId: 'build' }));
    const b = (await h.engine.ingest(
      event(3, { repo: 's', n: 3 }, { triggerId: 'build' }),
    )) as DeferredAnswer;
    const reports = await h.advance(1_000);
    // One gate for the trigger, limit 1: the second waits for the first's failed run to free it.
    expect(reports.map((r) => r.outcome)).toEqual(['queued', 'dispatched', 'dispatched']);
    expect(reports.filter((r) => r.outcome === 'dispatched').map((r) => r.detail)).toEqual([
      expect.stringMatching(/attempt 1: failed$/),
      expect.stringMatching(/attempt 1: failed$/),
    ]);
    for (const id of [a.dispatchId, b.dispatchId])
      expect(await h.engine.twin.read((v) => readDispatch(v, id))).toMatchObject({
        state: 'dispatched',
        runStatus: 'failed',
        running: false,
      });
    // The coalesced key heard of the failure; the run's own key runs again, as dedupe does today.
    expect(
      await h.engine.ingest(event(1, { repo: 'r', n: 1 }, { triggerId: 'build' })),
    ).toMatchObject({
      status: 'duplicate',
      original: 'failed',
      dispatchId: a.dispatchId,
    });
    fail = false;
    expect(
      await h.engine.ingest(event(2, { repo: 'r', n: 2 }, { triggerId: 'build' })),
    ).toMatchObject({
      status: 'triggered',
      attempt: 2,
      routineResult: { built: { repo: 'r', n: 2 } },
    });
    await h.world.close();
  });

  it('key functions choose the key; an envelope without the key path has the empty key', async () => {
    const h = await deferredHarness([
      {
        triggerId: 'customer.updated',
        routineId: 'sync',
        dispatch: {
          debounce: { key: (e) => (e.payload as { a?: string }).a?.toUpperCase(), period: 1_000 },
        },
      },
      {
        triggerId: 'other',
        routineId: 'sync',
        dispatch: { debounce: { key: 'payload.customer.id', period: 1_000 } },
      },
    ]);
    const x = (await h.engine.ingest(event(1, { a: 'k' }))) as DeferredAnswer;
    const y = (await h.engine.ingest(event(2, { a: 'K' }))) as DeferredAnswer;
    expect(y.dispatchId).toBe(x.dispatchId);
    const p = (await h.engine.ingest(
      event(3, { customer: 'flat' }, { triggerId: 'other' }),
    )) as DeferredAnswer;
    const q = (await h.engine.ingest(event(4, {}, { triggerId: 'other' }))) as DeferredAnswer;
    expect(q.dispatchId).toBe(p.dispatchId);
    expect(q.pings).toBe(2);
    await h.advance(1_000);
    expect(h.calls.map((c) => c.input)).toEqual([{ a: 'K' }, {}]);
    await h.world.close();
  });
});
