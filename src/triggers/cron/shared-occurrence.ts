// What calendars and schedules agree on about an occurrence: the catch-up limits and the id a
// nominal occurrence is known by, so the same (tenant, trigger, instant) is one record in both.
import { sha256Hex } from '../../log/canonical-json.js';
import type { CatchUpPolicy } from './occurrences.js';

/** Largest `all.max`: a catch-up fires at most this many occurrences in one tick. */
export const MAX_CATCH_UP_FIRES = 500;
export const DEFAULT_CATCH_UP: CatchUpPolicy = Object.freeze({ kind: 'latest' });

/** Identified by trigger and nominal instant: the same occurrence always has the same id. */
export function occurrenceId(tenantId: string, triggerId: string, nominalAt: string): string {
  return `occ_${sha256Hex(`${tenantId}\u0000${triggerId}\u0000${nominalAt}`)}`;
}
