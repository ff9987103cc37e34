// Keeping a lease alive while its owner works: a beat every third of the lease, on the world
// clock, so a lease lapses only when its owner stopped (crashed, hung, or lost the claim).
import type { Clock } from '../world/clock.js';

/**
 * Calls `beat` every `leaseMs / 3` until the returned function is called. A beat that answers
 * false (the claim was lost) stops the beats; a beat that throws is reported and beats go on.
 */
export function keepAlive(
  clock: Clock,
  leaseMs: number,
  beat: () => Promise<boolean>,
  report: (error: unknown) => void,
): () => void {
  const every = Math.max(1, Math.floor(leaseMs / 3));
  let stopped = false;
  let cancel: (() => void) | undefined;
  const next = (): void => {
    if (stopped) return;
    cancel = clock.schedule(clock.now() + every, async () => {
      if (stopped) return;
      let goOn = true;
      try {
        goOn = await beat();
      } catch (error) {
        report(error);
      }
      if (goOn) next();
    });
  };
  next();
  return () => {
    stopped = true;
    cancel?.();
  };
}
