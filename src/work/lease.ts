// Owners, leases and fencing numbers (docs/work.md), as pure decisions over a resource's fields. Any
// piece of work the kernel claims — a delivery attempt, a routine run, a scheduled fire, a deferred
// dispatch — carries these fields; an atomic action reads them and decides. Nothing here does I/O.
import { TwinError } from '../errors.js';
import type { JsonObject } from '../log/json-value.js';
import { DUE_INDEX } from '../state/indexes.js';
import { isoAt } from '../world/clock.js';

/**
 * The index every piece of claimable work declares on its `dueAt` field: an ISO time, so byte
 * order is time order and `lookupUpTo(type, DUE_INDEX, now)` finds what is due without a scan.
 * Terminal work has `dueAt: null` and leaves the index.
 */
export { DUE_INDEX };
export const DUE_FIELD = 'dueAt';

/** Past every ISO time: a `lookupUpTo` bound that answers the earliest due item. */
export const END_OF_TIME = '\uffff';

export interface LeaseFields {
  /** The worker holding the claim, or null when nobody does. */
  readonly owner: string | null;
  /** When the claim lapses unless its owner heartbeats (ISO, world clock). */
  readonly leaseUntil: string | null;
  /** Increases on every claim: a finish names the fence it was granted, so a lost claim is seen. */
  readonly fence: number;
}

/** What a claimant holds: pass it back to heartbeat and to finish. */
export interface Held {
  readonly owner: string;
  readonly fence: number;
  readonly leaseUntil: string;
}

export const DEFAULT_LEASE_MS = 30_000;

/** The lease fields of any record; records written before leases existed read as unowned. */
export function leaseOf(fields: LeaseSource): LeaseFields {
  return {
    owner: typeof fields.owner === 'string' ? fields.owner : null,
    leaseUntil: typeof fields.leaseUntil === 'string' ? fields.leaseUntil : null,
    fence: typeof fields.fence === 'number' ? fields.fence : 0,
  };
}

/** Whatever record carries a claim: its owner, lease end and fence, checked as read. */
export interface LeaseSource {
  readonly owner?: unknown;
  readonly leaseUntil?: unknown;
  readonly fence?: unknown;
}

/** Whether someone else may take the claim: nobody holds it, or its lease has lapsed. */
export function leaseFree(lease: LeaseFields, nowMs: number): boolean {
  return lease.owner === null || lease.leaseUntil === null || Date.parse(lease.leaseUntil) <= nowMs;
}

/** Whether `held` is still the claim on record: same owner, same fence. Lapsed but not taken counts. */
export function stillHeld(lease: LeaseFields, held: Pick<Held, 'owner' | 'fence'>): boolean {
  return lease.owner === held.owner && lease.fence === held.fence;
}

/** The fields a new claim writes (the due time moves to the lease's end: that is when a lapse is due). */
export function claimFields(
  lease: LeaseFields,
  owner: string,
  nowMs: number,
  leaseMs: number,
): { fields: JsonObject; held: Held } {
  const leaseUntil = isoAt(nowMs + leaseMs);
  const fence = lease.fence + 1;
  return {
    fields: { owner, leaseUntil, fence, [DUE_FIELD]: leaseUntil },
    held: { owner, fence, leaseUntil },
  };
}

/** The fields a heartbeat writes. */
export function extendFields(nowMs: number, leaseMs: number): JsonObject {
  const leaseUntil = isoAt(nowMs + leaseMs);
  return { leaseUntil, [DUE_FIELD]: leaseUntil };
}

/** The fields that end a claim: nobody owns it; `dueAt` is the next time it needs anyone, or null. */
export function releaseFields(dueAt: string | null): JsonObject {
  return { owner: null, leaseUntil: null, [DUE_FIELD]: dueAt };
}

export function checkLeaseMs(value: unknown, path: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
    throw new TwinError(
      'INVALID_ARGUMENT',
      `${path} must be a positive integer number of milliseconds, got ${JSON.stringify(value) ?? String(value)}`,
      { path },
    );
  }
  return value;
}
