// twinworld/schedules — schedules (docs/schedules.md): declarations with a revision fence, occurrence
// claims with overlap policies, launch reservations, the fire ledger, backfill, host heartbeats,
// and the work kind that runs them.
export {
  Schedules,
  DEFAULT_RESERVATION_LEASE_MS,
  DEFAULT_GRACE_MS,
  MAX_BACKFILL,
  type SchedulesOptions,
  type ScheduleView,
  type ChangeOptions,
  type ClaimRequest,
  type BackfillRequest,
  type BackfillReport,
  type Inspection,
  type RunReport,
} from './schedules.js';
export {
  DEFAULT_ROUTINE,
  DEFAULT_TIMEZONE,
  parseCatchUp,
  validateScheduleInput,
  type ScheduleInput,
  type ScheduleFields,
  type Decoded,
} from './declaration.js';
export {
  OUTCOMES,
  SETTLED_OUTCOMES,
  type FireFields,
  type FireState,
  type FireOrigin,
  type Outcome,
  type LateObservation,
} from './fire-record.js';
export {
  parseOverlap,
  validateOverlap,
  formatOverlap,
  overlapActionFor,
  DEFAULT_OVERLAP,
  MAX_BUFFER,
  type OverlapPolicy,
  type OverlapAction,
} from './overlap.js';
export type { Claim, Reservation } from './claim.js';
export type { FireResult, ResultAnswer } from './result.js';
export {
  DEFAULT_HISTORY_LIMIT,
  MAX_HISTORY_LIMIT,
  type HistoryQuery,
  type HistoryPage,
  type FireView,
  type OutcomeFilter,
  type UndecodableRow,
} from './ledger.js';
export { DEFAULT_HOST_BEAT_MS, type HostView } from './hosts.js';
export { scheduleWork, SCHEDULE_WORK, claimItem, type ClaimedItem } from './schedule-work.js';
export { listEnabledSchedules, type EnabledSchedules } from './list-enabled.js';
