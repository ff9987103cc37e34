// The send-once protocol's two pure decisions, on a real twin's view: who may claim a delivery
// record (first attempt, retry, operator's redeliver) and what a finish writes — each allowed
// case with its exact writes, and each refused case with none.
import { describe, expect, it } from 'vitest';
import type { Write } from '../../src/log/write.js';
import {
  decideClaim,
  decideAttemptFinish,
  type Claim,
  type ClaimKind,
  type DeliveryFields,
  type Finish,
} from '../../src/events/delivery-records.js';
import { normalizeDecision } from '../../src/world/decision.js';
import { VirtualClock } from '../../src/world/clock.js';
import { openWorld } from '../../src/world/world.js';

const NOW_ISO = '2026-04-01T00:10:00.000Z';
const NOW = Date.parse(NOW_ISO);

function record(overrides: Partial<DeliveryFields> = {}): DeliveryFields {
  return {
    state: 'queued',
    attempts: 0,
    currentAttempt: null,
    nextAttemptAt: null,
    acceptedAt: null,
    finishedAt: null,
    lastStatus: null,
    lastOutcome: null,
    pack: 'acme',
    eventType: 'customer.created',
    eventId: 'evt_1',
    messageId: 'msg_1',
    endpointKind: 'endpoint',
    endpointId: 'ep',
    secretRef: 'ep',
    url: 'inproc://ep',
    body: '{}',
    createdAt: '2026-04-01T00:00:00.000Z',
    traceparent: null,
    tracestate: null,
    ...overrides,
  };
}

/** A twin holding one delivery record `dlv_1` (and, optionally, attempts); decisions are read, not committed. */
async function twinWith(
  fields: Partial<DeliveryFields> | undefined,
  attempts: Record<string, Record<string, unknown>> = {},
) {
  const world = openWorld({ root: ':memory:', clock: new VirtualClock(NOW), seed: 'records' });
  const twin = world.twin('acme');
  const writes: Write[] = [];
  if (fields !== undefined)
    writes.push({
      operation: 'delivery.create',
      subjectType: 'delivery',
      subjectId: 'dlv_1',
      fields: record(fields) as never,
    });
  for (const [id, f] of Object.entries(attempts))
    writes.push({
      operation: 'delivery_attempt.create',
      subjectType: 'delivery_attempt',
      subjectId: id,
      fields: f as never,
    });
  if (writes.length > 0) await twin.applyAtomic(() => writes);
  return twin;
}

async function claimOn(
  fields: Partial<DeliveryFields> | undefined,
  kind: ClaimKind,
  takes?: boolean,
) {
  const twin = await twinWith(fields);
  return twin.read((view) =>
    normalizeDecision(
      decideClaim(
        view,
        'delivery',
        'dlv_1',
        kind,
        NOW_ISO,
        NOW,
        takes === undefined ? {} : { endpointTakes: () => takes },
      ),
    ),
  );
}

const LEASE_END = new Date(NOW + 30_000).toISOString();

const claimWrite = (number: number, kind: ClaimKind): Write => ({
  operation: 'delivery.claim',
  subjectType: 'delivery',
  subjectId: 'dlv_1',
  fields: {
    state: 'sending',
    attempts: number,
    currentAttempt: `dlv_1.${number}`,
    nextAttemptAt: null,
    finishedAt: null,
    // the claim: owned, leased for the default 30 s (the due time is the lease's end), fenced
    owner: 'local',
    leaseUntil: LEASE_END,
    fence: 1,
    dueAt: LEASE_END,
  },
  projection: {
    creates: [
      {
        type: 'delivery_attempt',
        id: `dlv_1.${number}`,
        fields: {
          recordType: 'delivery',
          delivery: 'dlv_1',
          number,
          kind,
          state: 'sending',
          startedAt: NOW_ISO,
          finishedAt: null,
          status: null,
          reason: null,
          headers: null,
          owner: 'local',
        },
      },
    ],
  },
  actor: kind === 'redeliver' ? 'operator' : 'system',
});

const none = { writes: [], result: undefined, skipped: true };

describe('decideClaim', () => {
  it('claims nothing for a record that does not exist, or was deleted, whatever the kind', async () => {
    for (const kind of ['first', 'retry', 'redeliver'] as const)
      expect(await claimOn(undefined, kind)).toEqual(none);
    const twin = await twinWith({});
    await twin.applyWrite({
      operation: 'delivery.delete',
      subjectType: 'delivery',
      subjectId: 'dlv_1',
      delete: true,
    });
    expect(
      await twin.read((view) =>
        normalizeDecision(decideClaim(view, 'delivery', 'dlv_1', 'redeliver', NOW_ISO, NOW)),
      ),
    ).toEqual(none);
  });

  it('a first attempt: a queued record never attempted, claimed as attempt 1 by the system', async () => {
    expect(await claimOn({}, 'first')).toEqual({
      writes: [claimWrite(1, 'first')],
      result: { attemptId: 'dlv_1.1', number: 1, kind: 'first', owner: 'local', fence: 1 },
      skipped: false,
    });
  });

  it('no first attempt from a record in another state, with an attempt made, or with one in flight', async () => {
    for (const fields of [
      { state: 'retrying' as const },
      { state: 'failed' as const },
      { attempts: 1 },
      { currentAttempt: 'dlv_1.0' },
      { state: 'sending' as const, currentAttempt: 'dlv_1.1', attempts: 1 },
    ]) {
      expect(await claimOn(fields, 'first'), JSON.stringify(fields)).toEqual(none);
    }
  });

  it('a retry: a record the policy scheduled, due now or earlier, claimed after its last attempt', async () => {
    const due = { state: 'retrying' as const, attempts: 2, lastOutcome: 'failed' as const };
    for (const nextAttemptAt of [NOW_ISO, '2026-04-01T00:09:59.999Z']) {
      expect(await claimOn({ ...due, nextAttemptAt }, 'retry')).toEqual({
        writes: [claimWrite(3, 'retry')],
        result: { attemptId: 'dlv_1.3', number: 3, kind: 'retry', owner: 'local', fence: 1 },
        skipped: false,
      });
    }
  });

  it('no retry before its time, without a time, from another state, or with an attempt in flight', async () => {
    const due = { state: 'retrying' as const, attempts: 1, nextAttemptAt: NOW_ISO };
    for (const fields of [
      { ...due, nextAttemptAt: '2026-04-01T00:10:00.001Z' },
      { ...due, nextAttemptAt: null },
      { ...due, state: 'failed' as const },
      { ...due, state: 'queued' as const, attempts: 0 },
      { ...due, currentAttempt: 'dlv_1.1' },
    ]) {
      expect(await claimOn(fields, 'retry'), JSON.stringify(fields)).toEqual(none);
    }
  });

  it('a due retry whose endpoint no longer takes it is cancelled: failed, with no time, and nothing claimed', async () => {
    const due = { state: 'retrying' as const, attempts: 1, nextAttemptAt: NOW_ISO };
    expect(await claimOn(due, 'retry', false)).toEqual({
      writes: [
        {
          operation: 'delivery.retry_cancel',
          subjectType: 'delivery',
          subjectId: 'dlv_1',
          fields: { state: 'failed', nextAttemptAt: null, dueAt: null },
          actor: 'system',
        },
      ],
      result: undefined,
      skipped: false,
    });
    // a pending retry not yet due is cancelled as well: the endpoint is gone either way
    expect(
      (
        await claimOn({ ...due, nextAttemptAt: '2026-04-02T00:00:00.000Z' }, 'retry', false)
      ).writes.map((w) => w.operation),
    ).toEqual(['delivery.retry_cancel']);
    // a first attempt to an endpoint disabled after queueing is never made: cancelled
    expect(await claimOn({}, 'first', false)).toEqual({
      writes: [
        {
          operation: 'delivery.cancel',
          subjectType: 'delivery',
          subjectId: 'dlv_1',
          fields: { state: 'cancelled', reason: 'endpoint_disabled', dueAt: null },
          actor: 'system',
        },
      ],
      result: undefined,
      skipped: false,
    });
    expect(await claimOn({ state: 'failed', attempts: 1 }, 'retry', false)).toEqual(none);
    expect(await claimOn({ state: 'failed', attempts: 1 }, 'redeliver', false)).toMatchObject({
      result: { number: 2, kind: 'redeliver' },
    });
    expect(await claimOn(due, 'retry', true)).toMatchObject({
      result: { number: 2, kind: 'retry' },
    });
    // an operator may still redeliver a retrying record to an endpoint since disabled; a first attempt never claims it
    expect(await claimOn(due, 'redeliver', false)).toMatchObject({
      writes: [claimWrite(2, 'redeliver')],
      result: { number: 2, kind: 'redeliver' },
    });
    expect(await claimOn(due, 'first', false)).toEqual(none);
  });

  it("a redeliver: the operator's, from any state with no attempt in flight", async () => {
    for (const state of ['queued', 'retrying', 'succeeded', 'failed', 'unknown'] as const) {
      expect(await claimOn({ state, attempts: 1 }, 'redeliver'), state).toEqual({
        writes: [claimWrite(2, 'redeliver')],
        result: { attemptId: 'dlv_1.2', number: 2, kind: 'redeliver', owner: 'local', fence: 1 },
        skipped: false,
      });
    }
  });

  it('no redeliver while an attempt is in flight', async () => {
    expect(
      await claimOn({ state: 'sending', attempts: 1, currentAttempt: 'dlv_1.1' }, 'redeliver'),
    ).toEqual(none);
    expect(await claimOn({ state: 'sending', attempts: 1 }, 'redeliver')).toEqual(none);
    expect(
      await claimOn({ state: 'failed', attempts: 1, currentAttempt: 'dlv_1.1' }, 'redeliver'),
    ).toEqual(none);
  });
});

describe('decideAttemptFinish', () => {
  const claim: Claim = { attemptId: 'dlv_1.2', number: 2, kind: 'retry' };
  const sendingAttempt = {
    delivery: 'dlv_1',
    number: 2,
    kind: 'retry',
    state: 'sending',
    startedAt: NOW_ISO,
    finishedAt: null,
    status: null,
    reason: null,
    headers: null,
  };
  const inFlight = { state: 'sending' as const, attempts: 2, currentAttempt: 'dlv_1.2' };
  const ok: Finish = {
    outcome: 'succeeded',
    status: 204,
    reason: 'http_status',
    headers: { 'x-a': '1' },
  };
  const attemptFields = (f: Finish) => ({
    state: f.outcome,
    finishedAt: NOW_ISO,
    status: f.status,
    reason: f.reason,
    headers: f.headers,
  });

  async function finishOn(
    fields: Partial<DeliveryFields> | undefined,
    attempt: Record<string, unknown> | undefined,
    finish: Finish,
  ) {
    const twin = await twinWith(fields, attempt === undefined ? {} : { 'dlv_1.2': attempt });
    return twin.read((view) =>
      normalizeDecision(decideAttemptFinish(view, 'delivery', 'dlv_1', claim, finish, NOW_ISO)),
    );
  }

  it('a success moves the record and its attempt, and sets acceptedAt once', async () => {
    expect(await finishOn(inFlight, sendingAttempt, ok)).toEqual({
      writes: [
        {
          operation: 'delivery.finish',
          subjectType: 'delivery',
          subjectId: 'dlv_1',
          fields: {
            state: 'succeeded',
            currentAttempt: null,
            lastStatus: 204,
            lastOutcome: 'succeeded',
            nextAttemptAt: null,
            finishedAt: NOW_ISO,
            acceptedAt: NOW_ISO,
            owner: null,
            leaseUntil: null,
            dueAt: null,
          },
          projection: {
            updates: [{ type: 'delivery_attempt', id: 'dlv_1.2', fields: attemptFields(ok) }],
          },
          actor: 'system',
        },
      ],
      result: 'succeeded',
      skipped: false,
    });
    const again = await finishOn(
      { ...inFlight, acceptedAt: '2026-04-01T00:00:00.000Z' },
      sendingAttempt,
      ok,
    );
    expect(again.writes[0]!.fields).not.toHaveProperty('acceptedAt');
  });

  it('a failure with a retry granted leaves the record retrying at that time; without one, failed or unknown', async () => {
    const failed: Finish = {
      outcome: 'failed',
      status: 500,
      reason: 'http_status',
      headers: null,
      retryAt: NOW + 60_000,
    };
    const retrying = await finishOn(inFlight, sendingAttempt, failed);
    expect(retrying.result).toBe('retrying');
    expect(retrying.writes[0]!.fields).toEqual({
      state: 'retrying',
      currentAttempt: null,
      lastStatus: 500,
      lastOutcome: 'failed',
      nextAttemptAt: '2026-04-01T00:11:00.000Z',
      finishedAt: NOW_ISO,
      // the claim ends; the record falls due again when its retry does
      owner: null,
      leaseUntil: null,
      dueAt: '2026-04-01T00:11:00.000Z',
    });
    const unknown: Finish = { outcome: 'unknown', status: null, reason: 'timeout', headers: null };
    const done = await finishOn(inFlight, sendingAttempt, unknown);
    expect(done.result).toBe('unknown');
    expect(done.writes[0]!.fields).toEqual({
      state: 'unknown',
      currentAttempt: null,
      lastStatus: null,
      lastOutcome: 'unknown',
      nextAttemptAt: null,
      finishedAt: NOW_ISO,
      owner: null,
      leaseUntil: null,
      dueAt: null,
    });
  });

  it("an attempt that is not the record's current one records only its own outcome", async () => {
    for (const fields of [
      { ...inFlight, currentAttempt: 'dlv_1.3', attempts: 3 },
      { ...inFlight, currentAttempt: null, state: 'unknown' as const },
      undefined,
    ]) {
      expect(await finishOn(fields, sendingAttempt, ok), JSON.stringify(fields)).toEqual({
        writes: [
          {
            operation: 'delivery_attempt.finish',
            subjectType: 'delivery_attempt',
            subjectId: 'dlv_1.2',
            fields: attemptFields(ok),
            actor: 'system',
          },
        ],
        result: undefined,
        skipped: false,
      });
    }
  });

  it('finishes nothing for an attempt that does not exist or has already finished', async () => {
    expect(await finishOn(inFlight, undefined, ok)).toEqual(none);
    for (const state of ['succeeded', 'failed', 'unknown'])
      expect(await finishOn(inFlight, { ...sendingAttempt, state }, ok), state).toEqual(none);
  });
});
