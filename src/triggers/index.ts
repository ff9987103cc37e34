// twinworld/triggers — durable trigger ingress: envelopes, the engine, routines, and the calendar
// and webhook sources. Schedules and deferred dispatch have their own entries
// (twinworld/schedules, twinworld/deferred); the HTTP ingress, serve and the runtime are in
// twinworld/host. Named exports only, capped by test/architecture/entry-points.test.ts.
export type {
  ChallengeAnswer,
  WebhookAnswer,
  IngestAnswer,
  IngestStatus,
  TriggeredAnswer,
  FilteredAnswer,
  DuplicateAnswer,
  InProgressAnswer,
  DeferredAnswer,
} from './answer.js';
export {
  createTriggerEnvelope,
  checkEnvelope,
  SOURCE_KINDS,
  MAX_PAYLOAD_BYTES,
  type SourceKind,
  type TriggerSourceRef,
  type TriggerEnvelope,
  type TriggerEnvelopeInput,
} from './envelope.js';
export {
  TriggerEngine,
  DEFAULT_STOP_GRACE_MS,
  type TriggerRoute,
  type TriggerEngineOptions,
  type RecoveryOptions,
  type StopOptions,
  type TriggerRecoveryReport,
  type RecoveredRun,
} from './engine/engine.js';
export { DEFAULT_TRIGGER_TWIN, MAX_RESULT_BYTES } from './defaults.js';
export {
  tenantContext,
  SYSTEM_CONTEXT,
  TENANT_PERMISSIONS,
  isTriggerContext,
  tenantOf,
  type TenantContext,
  type SystemContext,
  type TriggerContext,
  type TenantPermission,
} from './tenant-context.js';
export type {
  RoutineRunner,
  RoutineRunRequest,
  RunOutcome,
  RunRecorder,
  RunStartInfo,
} from './runner.js';
export {
  InProcessRunner,
  type InProcessRunnerOptions,
  type RoutineFn,
  type RoutineContext,
} from './in-process-runner.js';
export type { TriggerSource } from './source.js';
export {
  type RecordFields,
  type RecordState,
  type ReceiptFields,
  type ReceiptStatus,
} from './trigger-records.js';
export { CalendarSource, DEFAULT_PENDING_LEASE_MS } from './calendar/calendar-source.js';
export {
  type TickAnswer,
  type FiredOccurrence,
  type MissedOccurrence,
  type ConfigureAnswer,
  type OccurrenceFields,
} from './calendar/occurrence-record.js';
export {
  validateSubscription,
  CALENDAR_KINDS,
  type CalendarSubscription,
  type ValidSubscription,
  type SubscriptionFields,
} from './calendar/subscription.js';
export {
  validateCalendarSpec,
  validateCatchUpPolicy,
  nextOccurrence,
  occurrencesBetween,
  planCatchUp,
  wallTime,
  zoneOffsetMinutes,
  DST_RULES,
  type CalendarSpec,
  type Occurrence,
  type CatchUpPolicy,
  type CatchUpPlan,
  type DstGapRule,
  type DstFoldRule,
} from './cron/occurrences.js';
export {
  WebhookIngress,
  DEFAULT_MAX_BODY_BYTES,
  type WebhookEndpoint,
  type ConfiguredEndpoint,
  type WebhookRequest,
  type WebhookIngressOptions,
} from './webhook/webhook-ingress.js';
export {
  HMAC_DELIVERY_HEADER,
  GITHUB_DELIVERY_HEADER,
  GITHUB_EVENT_HEADER,
} from './webhook/delivery-id.js';
export { RECORD_ROUTINE, recordRoutine } from './routines/record-routine.js';
export {
  listTriggerRecords,
  type TriggerListing,
  type ListOptions,
  type ListedStatus,
} from './list.js';
export { pruneTriggerHistory, type PruneOptions, type PruneReport } from './retention.js';
export { DEFAULT_REFUSAL_WINDOW_MS, type RefusalWindowFields } from './refusal-windows.js';
export { type ReplayGuard, type ReplayGuardFields } from './trigger-records.js';
export { DEFAULT_GITHUB_REPLAY_WINDOW_SEC } from './webhook/delivery-id.js';
export type { IngestOptions } from './engine/engine.js';
export { WAIT_ROUTINE, MAX_WAIT_MS, waitRoutine } from './routines/wait-routine.js';
export { DEFAULT_CATCH_UP, MAX_CATCH_UP_FIRES } from './cron/shared-occurrence.js';
