// twinworld/child-runner: routines run outside the process — the routine store and run lock
// ports (docs/routine-runners.md) and the runner that runs a module's routines in a child.
export { RoutineRegistry, type RoutineStore } from '../routine-store.js';
export type { RunLock, RunLockHold } from '../run-lock.js';
export { ChildProcessRunner, type ChildProcessRunnerOptions } from './child-process-runner.js';
export type { ChildRoutineFn, ChildRoutineContext } from './child-protocol.js';
export { FileRunLock } from './file-run-lock.js';
