// twinworld/deferred — deferred dispatch (docs/deferred.md): delay, debounce, concurrency limits and
// expiry, answered at once and run when due by any worker sharing the store.
export {
  checkDispatchOptions,
  mergeDispatch,
  MAX_DISPATCH_MS,
  MAX_CONCURRENCY,
  type DispatchOptions,
  type DebounceOptions,
  type ConcurrencyOptions,
  type DispatchKey,
  type DebounceMode,
  type OnLimit,
  type CheckedDispatch,
} from './dispatch-options.js';
export { planDispatch, resolveKey, type DispatchPlan } from './dispatch-plan.js';
export {
  DISPATCH_STATES,
  WAITING_STATES,
  type DispatchState,
  type DispatchFields,
} from './dispatch-record.js';
export type { GateFields } from './concurrency-gate.js';
export type { DebounceFields } from './debounce.js';
export {
  deferredDispatchWork,
  DISPATCH_WORK,
  type DispatchWork,
  type ClaimedDispatch,
} from './dispatch-work.js';
export { runDueDispatches } from './run-due.js';
export {
  dispatchLocation,
  DISPATCH_PATH,
  readDispatchStatus,
  type DispatchStatus,
  type DispatchDetail,
  type DispatchRun,
} from './dispatch-status.js';
export {
  listDispatches,
  inspectDispatch,
  cancelDispatch,
  type DispatchQuery,
  type DispatchTarget,
  type CancelAnswer,
} from './operations.js';
export type { StepResult } from './dispatch-step.js';
