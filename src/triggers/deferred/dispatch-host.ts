// What deferred dispatch may use of the engine: its world and twin, its claimant, whether a
// route exists, and running or taking over a claimed run. The engine satisfies it; deferred/
// never imports the engine, so the engine can import deferred/ without a circle.
import type { World } from '../../world/world.js';
import type { Twin } from '../../world/twin.js';
import type { RunClaimant } from '../trigger-records.js';
import type { RunRecorder, RunStartInfo } from '../runner.js';

export interface DispatchHost {
  readonly world: World;
  /** The trigger twin dispatches and their runs are written to. */
  readonly twin: Twin;
  readonly claimant: RunClaimant;
  readonly runner: { readonly recorder?: RunRecorder | undefined };
  readonly running: boolean;
  hasRoute(triggerId: string): boolean;
  /** Takes over a run whose owner's lease lapsed (one claim wins among those who try). */
  takeOver(recordId: string): Promise<unknown>;
  /** Runs a claimed dispatch's routine to its terminal answer. */
  runDispatched(run: RunStartInfo, scheduledAt: string): Promise<{ readonly status: string }>;
}
