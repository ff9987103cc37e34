// Routines for the routine runner conformance suite, loaded the same way by every runner: the
// in-process runner registers these functions, the child-process runner loads this module's
// compiled file in its child. They use only what every runner gives a routine.
import type { JsonValue } from '../../src/log/json-value.js';
import type { ChildRoutineContext } from '../../src/triggers/child-runner/child-protocol.js';

type Routine = (input: JsonValue, context: ChildRoutineContext) => Promise<JsonValue> | JsonValue;

export const routines: Record<string, Routine> = {
  echo: (input, ctx) => ({ echo: input, attempt: ctx.attempt, runKey: ctx.runKey }),
  // A business failure is a result, not a throw: the run finished.
  declined: () => ({ ok: false, reason: 'card_declined' }),
  // Not finished on its first attempt: the engine fails the record and a retry runs it again.
  flaky: (_input, ctx) => {
    if (ctx.attempt === 1) {
      const error = new Error('the upstream was not ready');
      error.name = 'UPSTREAM_NOT_READY';
      throw error;
    }
    return { attempt: ctx.attempt };
  },
  // Its first attempt kills the process it runs in (SIGKILL, nothing flushed, nothing answered).
  crash: (_input, ctx) => {
    if (ctx.attempt === 1) process.kill(process.pid, 'SIGKILL');
    return { survived: ctx.attempt, pid: process.pid };
  },
  // Never finishes: only a timeout or a lost claim ends it.
  hang: () => new Promise<JsonValue>(() => {}),
  pid: () => process.pid,
};
