// The lock a runner takes around one execution of a run when routines run outside the
// engine's process. The engine's claim already makes one owner per trigger record (a lease,
// heartbeats, a stale result refused); what it cannot stop is a routine still executing
// elsewhere after its owner died — a child process outliving its parent. A run lock held by the
// executing process keeps a taken-over attempt from starting beside it.
export interface RunLockHold {
  release(): Promise<void>;
}

export interface RunLock {
  /**
   * Takes the lock of `key` (the trigger record's id: one per tenant and run key) for this process, or answers undefined while a live holder has it
   * (the attempt then fails and is run again later, like any failed run). Never waits.
   */
  acquire(key: string): Promise<RunLockHold | undefined>;
}
