// The engine as its operations see it: a narrow interface, so each operation is a function in its
// own module and the engine class stays a façade over them.
import type { Twin } from '../../world/twin.js';
import type { World } from '../../world/world.js';
import { GroupCommit } from '../../world/group-commit.js';
import { type RunClaimant } from '../trigger-records.js';
import type { RoutineRunner } from '../runner.js';
import { type Repeat } from '../repeat-windows.js';
import { type CheckedDispatch } from '../deferred/dispatch-options.js';

import { type TriggerRoute } from './engine-options.js';

/**
 * What the engine's operations (ingest.ts, run-claimed.ts, recover.ts) use of it: its world and
 * trigger twin, its claimant, the group commit its decisions go through, and its routes.
 */
export interface EngineCore {
  readonly world: World;
  readonly twin: Twin;
  readonly runner: RoutineRunner;
  readonly claimant: RunClaimant;
  readonly commits: GroupCommit;
  /** A stopped engine's process is going away: its runs stop heartbeating. */
  stopped(): boolean;
  routeFor(triggerId: string): TriggerRoute | undefined;
  dispatchFor(triggerId: string): CheckedDispatch | undefined;
  /** Counts a repeat of a known delivery on its record (never fails the answer). */
  countRepeat(repeat: Repeat): Promise<void>;
}
