// Unauthenticated disk growth, bounded: forged packets are counted per source and minute (one
// aggregate fact in the log, not an entry and a resource each), and settled trigger history is
// pruned by a retention write that removes resources and never entries — the log still replays
// to the live state.
import { describe, expect, it } from 'vitest';
import { DEFAULT_TRIGGER_TWIN } from '../../src/triggers/defaults.js';
import { listTriggerRecords } from '../../src/triggers/list.js';
import {
  RECEIPT_TYPE,
  RECORD_TYPE,
  REPLAY_GUARD_TYPE,
} from '../../src/triggers/trigger-records.js';
import { REFUSALS_TYPE, type RefusalWindowFields } from '../../src/triggers/refusal-windows.js';
import { RETENTION_TYPE } from '../../src/triggers/retention.js';
import { replayLines } from '../../src/world/replay.js';
import {
  githubPacket,
  ingressHarness,
  SECRETS,
  stripePacket,
  T,
  type IngressHarness,
} from './packets.js';
import { expectRefusal } from './support.js';

const forged = (h: IngressHarness, i: number) => {
  const body = JSON.stringify({
    id: `evt_forged_${i}`,
    object: 'event',
    type: 'customer.created',
    data: { object: { pad: 'x'.repeat(500) } },
  });
  return h.ingress.handle({
    tenantId: 'acme',
    scopeId: 'acme',
    provider: 'stripe',
    headers: stripePacket(body, T, 'whsec_forgedSecret0000000000000000000001'),
    rawBody: body,
  });
};

async function windows(h: IngressHarness): Promise<RefusalWindowFields[]> {
  return (await h.world.twin(DEFAULT_TRIGGER_TWIN).list(REFUSALS_TYPE)).map(
    (r) => r.fields as unknown as RefusalWindowFields,
  );
}

describe('refusals are counted, not kept one by one', () => {
  it('500 forged packets in one minute: one entry at the first, the rest counted and written once at stop', async () => {
    const h = await ingressHarness();
    for (let i = 0; i < 500; i++) await expectRefusal(() => forged(h, i), 'BAD_SIGNATURE');
    const twin = h.world.twin(DEFAULT_TRIGGER_TWIN);
    expect(await twin.head()).toBe(1);
    expect(await windows(h)).toMatchObject([
      {
        count: 1,
        byCode: { BAD_SIGNATURE: 1 },
        tenantId: 'acme',
        provider: 'stripe',
        windowStart: '2026-03-01T12:00:00.000Z',
        windowEnd: '2026-03-01T12:01:00.000Z',
      },
    ]);
    await h.engine.stop();
    expect(await twin.head()).toBe(2);
    const [w] = await windows(h);
    expect(w).toMatchObject({
      count: 500,
      byCode: { BAD_SIGNATURE: 500 },
      lastCode: 'BAD_SIGNATURE',
      lastPath: 'headers.Stripe-Signature',
    });
    expect(w!.bodyBytes).toBeGreaterThan(500 * 500);
    expect(await listTriggerRecords(h.world)).toMatchObject([
      { kind: 'refusals', status: 'refused', count: 500, byCode: { BAD_SIGNATURE: 500 } },
    ]);
    await h.world.close();
  });

  it('a new minute starts a new window and writes the last one’s remaining count; codes are kept apart', async () => {
    const h = await ingressHarness();
    for (let i = 0; i < 3; i++) await expectRefusal(() => forged(h, i), 'BAD_SIGNATURE');
    await expectRefusal(
      () =>
        h.ingress.handle({
          tenantId: 'acme',
          scopeId: 'acme',
          provider: 'stripe',
          headers: {},
          rawBody: '{}',
        }),
      'MISSING_HEADER',
    );
    await h.clock.advance(60_000);
    const old = JSON.stringify({ id: 'evt_old', object: 'event', type: 'customer.created' });
    await expectRefusal(
      () =>
        h.ingress.handle({
          tenantId: 'acme',
          scopeId: 'acme',
          provider: 'stripe',
          headers: stripePacket(old, T - 400),
          rawBody: old,
        }),
      'STALE_TIMESTAMP',
    );
    const all = (await windows(h)).sort((a, b) => (a.windowStart < b.windowStart ? -1 : 1));
    expect(all).toMatchObject([
      { count: 4, byCode: { BAD_SIGNATURE: 3, MISSING_HEADER: 1 }, lastCode: 'MISSING_HEADER' },
      { count: 1, byCode: { STALE_TIMESTAMP: 1 }, windowStart: '2026-03-01T12:01:00.000Z' },
    ]);
    expect((await h.world.twin(DEFAULT_TRIGGER_TWIN).entries()).map((e) => e.operation)).toEqual([
      'trigger.refusals',
      'trigger.refusals',
      'trigger.refusals',
    ]);
    await h.world.close();
  });

  it('two engines on one root add their counts up instead of overwriting each other', async () => {
    const { mkdtempSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const root = mkdtempSync(join(tmpdir(), 'twinworld-refusals-'));
    try {
      const a = await ingressHarness([], { root });
      const b = await ingressHarness([], { root, clock: a.clock });
      for (let i = 0; i < 5; i++) await expectRefusal(() => forged(a, i), 'BAD_SIGNATURE');
      for (let i = 0; i < 7; i++) await expectRefusal(() => forged(b, i), 'BAD_SIGNATURE');
      await a.world.close();
      await b.world.close();
      const c = await ingressHarness([], { root, clock: a.clock });
      expect(await windows(c)).toMatchObject([{ count: 12 }]);
      await c.world.close();
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('retention of settled trigger history', () => {
  async function busyTwin(): Promise<IngressHarness> {
    const h = await ingressHarness();
    const body = (i: number) =>
      JSON.stringify({
        id: `evt_keep_${i}`,
        object: 'event',
        type: 'customer.created',
        created: T,
        data: { object: { id: `cus_${i}` } },
      });
    for (let i = 0; i < 5; i++) {
      const b = body(i);
      await h.ingress.handle({
        tenantId: 'acme',
        scopeId: 'acme',
        provider: 'stripe',
        headers: stripePacket(b),
        rawBody: b,
      });
    }
    // a duplicate (counted on its record), the same id with another body (a conflict receipt),
    // a forged packet (refusal window), a GitHub packet (replay guard)
    await h.ingress.handle({
      tenantId: 'acme',
      scopeId: 'acme',
      provider: 'stripe',
      headers: stripePacket(body(0)),
      rawBody: body(0),
    });
    const conflicting = body(0).replace('cus_0', 'cus_other');
    await expectRefusal(
      () =>
        h.ingress.handle({
          tenantId: 'acme',
          scopeId: 'acme',
          provider: 'stripe',
          headers: stripePacket(conflicting),
          rawBody: conflicting,
        }),
      'PAYLOAD_CONFLICT',
    );
    await expectRefusal(() => forged(h, 1), 'BAD_SIGNATURE');
    const gh = JSON.stringify({ action: 'opened', issue: { number: 1 } });
    await h.ingress.handle({
      tenantId: 'acme',
      scopeId: 'acme',
      provider: 'github',
      headers: await githubPacket(gh, 'd-keep'),
      rawBody: gh,
    });
    return h;
  }

  it('prunes settled records, receipts and closed refusal windows; entries are never removed; replay still matches', async () => {
    const h = await busyTwin();
    const twin = h.world.twin(DEFAULT_TRIGGER_TWIN);
    expect(await twin.list(RECORD_TYPE)).toHaveLength(6);
    const headBefore = await twin.head();
    // Too young: nothing goes.
    expect(await h.engine.pruneSettled({ olderThanMs: 3_600_000 })).toMatchObject({
      records: 0,
      receipts: 0,
      refusals: 0,
      guards: 0,
    });
    await h.clock.advance(2 * 3_600_000);
    const report = await h.engine.pruneSettled({ olderThanMs: 3_600_000 });
    // The GitHub guard's window (7 days) has not ended: retention stops at it, so the GitHub record
    // received after it stays until the guard expires.
    expect(report).toMatchObject({ records: 5, receipts: 1, refusals: 1, guards: 0 });
    expect(await twin.list(RECORD_TYPE)).toHaveLength(1);
    expect(await twin.list(RECEIPT_TYPE)).toEqual([]);
    expect(await twin.list(REFUSALS_TYPE)).toEqual([]);
    // a tombstone keeps no payload
    const gone = (await twin.entries()).find((e) => e.operation === 'trigger.receive')!;
    expect(await twin.get(RECORD_TYPE, gone.subjectId)).toMatchObject({
      deleted: true,
      fields: {},
    });
    // the log only grew, and folds to the live state
    expect(await twin.head()).toBe(headBefore + 1);
    expect((await replayLines(twin.exportLines())).hash).toBe(await twin.hash());
    // once the guard's window is over, the rest goes too
    await h.clock.advance(8 * 86_400_000);
    expect(await h.engine.pruneSettled({ olderThanMs: 3_600_000 })).toMatchObject({
      records: 1,
      guards: 1,
    });
    expect(await twin.list(REPLAY_GUARD_TYPE)).toEqual([]);
    expect(await twin.list(RECORD_TYPE)).toEqual([]);
    expect((await twin.get(RETENTION_TYPE, 'cursor'))?.fields.seq).toBe(headBefore + 1);
    await h.world.close();
  });

  it('never prunes a record that is still processing or failed', async () => {
    const h = await ingressHarness();
    h.engine.registerRoute({ triggerId: 'boom', routineId: 'missing', buildInput: () => null });
    h.ingress.addEndpoint({
      provider: 'boom',
      triggerId: 'boom',
      scheme: 'stripe',
      resolveSecrets: () => [SECRETS.stripe],
    });
    const b = JSON.stringify({ id: 'evt_fails', object: 'event', type: 'x', created: T });
    await expectRefusal(
      () =>
        h.ingress.handle({
          tenantId: 'acme',
          scopeId: 'acme',
          provider: 'boom',
          headers: stripePacket(b),
          rawBody: b,
        }),
      'ROUTINE_FAILED',
    );
    await h.clock.advance(30 * 86_400_000);
    expect(await h.engine.pruneSettled({ olderThanMs: 86_400_000 })).toMatchObject({ records: 0 });
    expect(await h.engine.record('acme', 'boom:evt_fails')).toMatchObject({ state: 'failed' });
    await h.world.close();
  });

  it('refuses a bad retention argument', async () => {
    const h = await ingressHarness();
    await expectRefusal(
      () => h.engine.pruneSettled({ olderThanMs: -1 }),
      'INVALID_ARGUMENT',
      'olderThanMs',
    );
    await expectRefusal(
      () => h.engine.pruneSettled({ olderThanMs: 1, batch: 0 }),
      'INVALID_ARGUMENT',
      'batch',
    );
    await h.world.close();
  });
});
