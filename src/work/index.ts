// Owners, leases, due times and the worker (docs/work.md).
export {
  DUE_INDEX,
  DUE_FIELD,
  END_OF_TIME,
  DEFAULT_LEASE_MS,
  leaseOf,
  leaseFree,
  stillHeld,
  claimFields,
  extendFields,
  releaseFields,
  checkLeaseMs,
  type LeaseFields,
  type Held,
} from './lease.js';
export { keepAlive } from './heartbeat.js';
export { Worker, type WorkerOptions, type WorkerStats } from './worker.js';
export type { DueItem, WorkKind, WorkContext, WorkReport } from './work-kind.js';
