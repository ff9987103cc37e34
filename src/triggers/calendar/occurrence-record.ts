// Calendar occurrences as stored in the trigger twin (numbered, pending, fired or missed), and
// what a tick or a configure answers about them.
import type { JsonValue } from '../../log/json-value.js';
import type { Resource } from '../../state/resource.js';
import type { IngestStatus } from '../answer.js';
import { type Occurrence } from '../cron/occurrences.js';
import { OCCURRENCE_TYPE } from './subscription.js';
import { recordKind } from '../../state/record-kind.js';

type OccurrenceState = 'pending' | 'fired' | 'missed';

export interface OccurrenceFields {
  readonly subscriptionId: string;
  readonly tenantId: string;
  readonly scopeId: string;
  readonly triggerId: string;
  readonly revision: number;
  /** 1, 2, 3… per subscription, in nominal order, fired and missed alike. */
  readonly number: number;
  readonly nominalAt: string;
  readonly wallTime: string;
  readonly utcOffsetMinutes: number;
  readonly dst: Occurrence['dst'];
  /** The DST rule that applied: 'gap:shift-forward', 'fold:first', or null when the wall time occurs once. */
  readonly dstRule: string | null;
  readonly timezone: string;
  readonly cron: string;
  readonly state: OccurrenceState;
  /** For a missed occurrence: the catch-up policy that left it out, e.g. 'catch-up:latest'. */
  readonly reason: string | null;
  /** True when more than one occurrence was due at once (it fires late, as part of a catch-up). */
  readonly catchUp: boolean;
  readonly decidedAt: string;
  readonly latenessMs: number;
  readonly dedupeKey: string;
  /** What ingest answered once fired: triggered, filtered, duplicate, in_progress, failed or refused. */
  readonly answer: string | null;
  readonly error: string | null;
  readonly recordId: string | null;
  readonly firedAt: string | null;
  readonly pending: string | null;
  /** Until then the tick that decided a pending occurrence owns its firing; after, any tick may. */
  readonly leaseUntil: string | null;
  /** When a worker must look at it: a pending occurrence's lease end; null once fired or missed. */
  readonly dueAt: string | null;
  /**
   * Grows with every reclaim (absent until one): the tick that fires a pending occurrence names
   * the fence it decided or reclaimed it at, so a tick that lost it to a reclaim is seen.
   */
  readonly fence?: number;
  /** What a tick that lost the occurrence saw when it fired it late (the record did not move). */
  readonly lateObservation?: {
    readonly fence: number;
    readonly answer: string;
    readonly error: string | null;
    readonly recordId: string | null;
    readonly observedAt: string;
  };
}

/** Occurrence records, typed (src/state/record-kind.ts). */
export const occurrenceKind = recordKind<OccurrenceFields>({ type: OCCURRENCE_TYPE });

/** A calendar occurrence's fields, typed: the one place one is read out of `Resource.fields`. */
export function occurrenceOf(resource: Resource): OccurrenceFields {
  return occurrenceKind.of(resource);
}

export interface FiredOccurrence {
  readonly triggerId: string;
  readonly number: number;
  readonly nominalAt: string;
  readonly wallTime: string;
  readonly utcOffsetMinutes: number;
  readonly dst: Occurrence['dst'];
  readonly dstRule: string | null;
  readonly catchUp: boolean;
  readonly latenessMs: number;
  readonly dedupeKey: string;
  readonly status: IngestStatus | 'failed' | 'refused';
  readonly error: string | null;
  readonly recordId: string | null;
  readonly routineResult: JsonValue;
}

export interface MissedOccurrence {
  readonly triggerId: string;
  readonly number: number;
  readonly nominalAt: string;
  readonly wallTime: string;
  readonly dst: Occurrence['dst'];
  readonly reason: string;
}

export interface TickAnswer {
  readonly tenantId: string;
  readonly now: string;
  /** In the order they fired: leftovers of an interrupted tick first, then by trigger and time. */
  readonly fired: FiredOccurrence[];
  readonly missed: MissedOccurrence[];
}

export interface ConfigureAnswer {
  readonly subscriptionId: string;
  readonly revision: number;
  readonly cursor: string;
  /** The first occurrence after the cursor, if the expression has one. */
  readonly nextAt: string | null;
}
