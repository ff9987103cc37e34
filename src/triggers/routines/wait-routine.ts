// The built-in `wait` routine: finishes `ms` milliseconds of world time after it starts (input
// {"ms": N}), so overlap policies can be seen at work — on a virtual clock in walks, on wall time
// in `twinworld work`. It stops early, failing, when its run loses its claim (a supersede).
import { TwinError } from '../../errors.js';
import type { JsonValue } from '../../log/json-value.js';
import { RealClock } from '../../world/clock.js';
import type { RoutineContext, RoutineFn } from '../in-process-runner.js';

export const WAIT_ROUTINE = 'wait';
/** Longest wait: a month of world time. */
export const MAX_WAIT_MS = 31 * 24 * 3600_000;

/** The input's `ms`, or INVALID_ARGUMENT: also checked where a schedule of `wait` is declared. */
export function waitMs(input: JsonValue): number {
  const ms =
    input !== null && typeof input === 'object' && !Array.isArray(input) ? input.ms : undefined;
  if (typeof ms !== 'number' || !Number.isSafeInteger(ms) || ms < 0 || ms > MAX_WAIT_MS)
    throw new TwinError(
      'INVALID_ARGUMENT',
      `the wait routine's input is {"ms": N} with N an integer from 0 to ${MAX_WAIT_MS}`,
      { path: 'input.ms' },
    );
  return ms;
}

export function waitRoutine(): RoutineFn {
  return (input: JsonValue, ctx: RoutineContext): Promise<JsonValue> => {
    const ms = waitMs(input);
    const clock = ctx.world.clock;
    const startedAt = clock.now();
    return new Promise<JsonValue>((resolve, reject) => {
      const signal = ctx.signal;
      // The real clock's timers do not hold the process open; a process waiting for this routine
      // (a worker finishing what it holds on SIGTERM) must stay up until it ends. Wall-time pacing
      // only: nothing of it reaches the log, and a virtual clock needs none.
      const keep = clock instanceof RealClock ? setInterval(() => {}, 2 ** 30) : undefined;
      const onAbort = (): void => {
        clearInterval(keep);
        cancel();
        const error = new Error('the run lost its claim');
        error.name = 'ABORTED';
        reject(error);
      };
      const cancel = clock.schedule(startedAt + ms, () => {
        clearInterval(keep);
        signal?.removeEventListener('abort', onAbort);
        resolve({ waited: ms });
      });
      if (signal?.aborted === true) onAbort();
      else signal?.addEventListener('abort', onAbort, { once: true });
    });
  };
}
