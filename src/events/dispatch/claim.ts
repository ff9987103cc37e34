// Claims, as pure decisions: one record's claim (dispatch, redeliver, a scheduled retry), the
// takeover of a claim whose lease lapsed, and the worker's batch — up to K due records picked and
// claimed in one section, each against the view the ones before it left.
import type { Write } from '../../log/write.js';
import type { ReadView } from '../../state/read-view.js';
import type { Resource } from '../../state/resource.js';
import { isoAt } from '../../world/clock.js';
import { commit, normalizeDecision, skip, type Decision } from '../../world/decision.js';
import { Overlay } from '../../world/overlay.js';
import { DUE_INDEX } from '../../work/lease.js';
import type { EventsDeclaration } from '../declaration.js';
import { deliveryEndpointEnded } from '../endpoint-cancel.js';
import {
  attemptType,
  decideAttemptFinish,
  decideClaim,
  deliveryOf,
  readDelivery,
  sendingLapsed,
  STALE,
  type Claim,
  type ClaimKind,
  type DeliveryFields,
  type Finish,
} from '../delivery-records.js';
import { gateClaim } from '../health/claim-gate.js';
import { backWrites } from '../health/finish-health.js';

/** Who claims, for how long. */
export interface Claimant {
  readonly owner: string;
  readonly leaseMs: number;
}

/** A claim the endpoint's health held back: the record is due again at `until` (epoch ms). */
export interface Held {
  readonly held: number;
}

/** A claim made: the attempt, the packet it sends, and the stamp its secrets are read under. */
export interface Claimed {
  readonly claim: Claim;
  readonly record: DeliveryFields;
  readonly secretStamp: string | undefined;
  /** When the request may go (epoch ms, world clock): the claim's time, or its endpoint's rate slot. */
  readonly sendAt: number;
  /** The endpoint's rate slot the request goes in: it is not sent much later (health/late-send.ts). */
  readonly slot?: number;
}

/** The endpoint's version, which moves with every rotation of its secret. */
function secretStamp(view: ReadView, d: DeliveryFields): string | undefined {
  const endpoint = view.get(d.endpointKind, d.endpointId);
  return endpoint === undefined
    ? undefined
    : `${d.endpointKind}\u0000${d.endpointId}\u0000${endpoint.version}`;
}

/**
 * One record's claim of `kind`; the packet (url, body, secret ref, trace) never changes after the
 * record is created, so the claim hands it over and a send costs no second read of the record.
 */
export function decideOneClaim(
  view: ReadView,
  decl: EventsDeclaration,
  deliveryId: string,
  kind: ClaimKind,
  nowMs: number,
  claimant: Claimant,
  to?: string,
): Decision<Claimed | Held | undefined> {
  const claimAt = (startedAt: number) =>
    normalizeDecision(
      decideClaim(view, decl.recordType, deliveryId, kind, isoAt(startedAt), nowMs, {
        endpointTakes: (d) => deliveryEndpointEnded(view, decl, d) === undefined,
        owner: claimant.owner,
        leaseMs: claimant.leaseMs,
        ...(to === undefined ? {} : { url: to }),
      }),
    );
  let { writes: claimWrites, result } = claimAt(nowMs);
  let sendAt = nowMs;
  let slot: number | undefined;
  const gateWrites: Write[] = [];
  if (result !== undefined && kind !== 'redeliver') {
    // An operator's redeliver is theirs to make; automatic attempts wait for the endpoint's health.
    const before = readDelivery(view, decl.recordType, deliveryId);
    const gate =
      before === undefined ? undefined : gateClaim(view, decl, deliveryId, before, nowMs);
    if (gate !== undefined && !gate.open) return commit(gate.writes, { held: gate.until });
    if (gate !== undefined) {
      gateWrites.push(...gate.writes);
      // Claimed a little ahead of its rate slot: the attempt starts, and is sent, at the slot.
      if (gate.sendAt !== nowMs) ({ writes: claimWrites, result } = claimAt(gate.sendAt));
      sendAt = gate.sendAt;
      slot = gate.slot;
    }
  }
  const record = result === undefined ? undefined : readDelivery(view, decl.recordType, deliveryId);
  return commit(
    [...claimWrites, ...gateWrites],
    result === undefined || record === undefined
      ? undefined
      : {
          claim: result,
          record,
          secretStamp: secretStamp(view, record),
          sendAt,
          ...(slot === undefined ? {} : { slot }),
        },
  );
}

/**
 * Takes over one `sending` record whose sender's lease lapsed: its attempt is finished `unknown`
 * (`lease_expired`). A record claimed before leases existed counts as lapsed once its attempt
 * started `staleAfterMs` ago. Answers whether it was taken over.
 */
export function decideTakeOver(
  view: ReadView,
  decl: EventsDeclaration,
  deliveryId: string,
  nowMs: number,
  staleAfterMs: number,
): Decision<boolean> {
  const d = readDelivery(view, decl.recordType, deliveryId);
  // Every claim names its attempt; a sending record without one was written by hand, and no
  // attempt of it can be finished.
  if (d === undefined || d.state !== 'sending' || d.currentAttempt === null) return skip(false);
  const claim: Claim = { attemptId: d.currentAttempt, number: d.attempts, kind: 'first' };
  if (d.leaseUntil === undefined || d.leaseUntil === null) {
    const started = view.get(attemptType(decl.recordType), claim.attemptId)?.fields.startedAt;
    if (typeof started === 'string' && Date.parse(started) + staleAfterMs > nowMs)
      return skip(false);
  } else if (!sendingLapsed(d, nowMs)) return skip(false);
  const finish: Finish = {
    outcome: 'unknown',
    status: null,
    reason: d.leaseUntil == null ? 'recovered_after_crash' : 'lease_expired',
    headers: null,
  };
  const { writes, result } = normalizeDecision(
    decideAttemptFinish(view, decl.recordType, deliveryId, claim, finish, isoAt(nowMs)),
  );
  const taken = result !== undefined && result !== STALE;
  return commit(
    taken ? [...writes, ...backWrites(view, d, claim.attemptId, nowMs)] : writes,
    taken,
  );
}

/** One record of a batch: claimed (an attempt to send), taken over, or acted on without a send. */
export interface DueClaim {
  readonly id: string;
  readonly dueAt: string;
  readonly state: string;
  readonly claimed?: Claimed;
  readonly takenOver?: true;
}

/**
 * The worker's batch: up to `limit` records due at `nowMs`, read under the twin's lock with what
 * each claim needs (view.pickUpTo), each claimed as its state asks — a first attempt, a due
 * retry, the takeover of a lapsed claim — against the view the ones before it left. `busy` names
 * records this process is running already: left alone.
 */
export function decideDueClaims(
  view: ReadView,
  decl: EventsDeclaration,
  nowMs: number,
  limit: number,
  claimant: Claimant,
  busy: (id: string) => boolean = () => false,
): Decision<DueClaim[]> {
  const type = decl.recordType;
  const maxKey = isoAt(nowMs);
  const picked =
    view.pickUpTo === undefined
      ? view.lookupUpTo(type, DUE_INDEX, maxKey, limit)
      : view.pickUpTo(type, DUE_INDEX, maxKey, limit);
  const staged = new Overlay(view);
  const writes: Write[] = [];
  const out: DueClaim[] = [];
  // A record whose reads must wait does not stop the others: every read of the batch leaves in one
  // round trip, and the section runs again with all of them (the first failure is thrown at the end).
  let failure: { error: unknown } | undefined;
  for (const r of picked) {
    if (busy(r.id)) continue;
    try {
      claimOne(r);
    } catch (error) {
      failure ??= { error };
    }
  }
  if (failure !== undefined) throw failure.error;
  return commit(writes, out);

  function claimOne(r: Resource): void {
    // Read again through the section: the pick may have been answered before the lock.
    const d = readDelivery(staged, type, r.id);
    if (d === undefined) return;
    const item = { id: r.id, dueAt: String(deliveryOf(r).dueAt ?? maxKey), state: d.state };
    if (d.state === 'sending') {
      const taken = normalizeDecision(decideTakeOver(staged, decl, r.id, nowMs, claimant.leaseMs));
      staged.stage(taken.writes);
      writes.push(...taken.writes);
      if (taken.result) out.push({ ...item, takenOver: true });
      return;
    }
    if (d.state !== 'queued' && d.state !== 'retrying') return;
    const kind = d.state === 'queued' ? 'first' : 'retry';
    const one = normalizeDecision(decideOneClaim(staged, decl, r.id, kind, nowMs, claimant));
    staged.stage(one.writes);
    writes.push(...one.writes);
    if (one.result !== undefined && !('held' in one.result))
      out.push({ ...item, claimed: one.result });
    else if (one.writes.length > 0) out.push(item);
  }
}
