// Durable trigger ingress: envelopes, the engine, routines, and the calendar and webhook sources.
export * from './answer.js';
export * from './envelope.js';
export {
  TriggerEngine,
  DEFAULT_STOP_GRACE_MS,
  type TriggerRoute,
  type TriggerEngineOptions,
  type RecoveryOptions,
  type StopOptions,
  type TriggerRecoveryReport,
  type RecoveredRun,
} from './engine.js';
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
  RUN_TYPE,
  runId,
  type RoutineFn,
  type RoutineContext,
} from './in-process-runner.js';
export type { TriggerSource } from './source.js';
export {
  RECORD_TYPE,
  RECEIPT_TYPE,
  RECOVERY_INDEX,
  TENANT_INDEX,
  recordId,
  type RecordFields,
  type RecordState,
  type ReceiptFields,
  type ReceiptStatus,
} from './trigger-records.js';
export {
  CalendarSource,
  DEFAULT_PENDING_LEASE_MS,
  type TickAnswer,
  type FiredOccurrence,
  type MissedOccurrence,
  type ConfigureAnswer,
  type OccurrenceFields,
} from './calendar/calendar-source.js';
export {
  SUBSCRIPTION_TYPE,
  OCCURRENCE_TYPE,
  subscriptionId,
  occurrenceDedupeKey,
  validateSubscription,
  CALENDAR_KINDS,
  type CalendarSubscription,
  type ValidSubscription,
  type SubscriptionFields,
} from './calendar/subscription.js';
export * from './cron/occurrences.js';
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
export { RECEIVED_TYPE, RECORD_ROUTINE, recordRoutine } from './routines/record-routine.js';
export {
  listTriggerRecords,
  type TriggerListing,
  type ListOptions,
  type ListedStatus,
} from './list.js';
export {
  pruneTriggerHistory,
  RETENTION_TYPE,
  type PruneOptions,
  type PruneReport,
} from './retention.js';
export {
  REFUSALS_TYPE,
  DEFAULT_REFUSAL_WINDOW_MS,
  type RefusalWindowFields,
} from './refusal-windows.js';
export { REPLAY_GUARD_TYPE, type ReplayGuard, type ReplayGuardFields } from './trigger-records.js';
export { DEFAULT_GITHUB_REPLAY_WINDOW_SEC } from './webhook/delivery-id.js';
export type { IngestOptions } from './engine.js';
export * from './schedules/index.js';
export { WAIT_ROUTINE, MAX_WAIT_MS, waitRoutine } from './routines/wait-routine.js';
export * from './deferred/index.js';
export { DEFAULT_CATCH_UP, MAX_CATCH_UP_FIRES, occurrenceId } from './cron/shared-occurrence.js';
