// What the dispatch steps need of the dispatcher that runs them: the world, who claims, the
// transports, the observers, and the one way to decide on a twin (claims and finishes of one loop
// turn share a section). The dispatcher implements it; the steps never import the dispatcher.
import type { ReadView } from '../../state/read-view.js';
import type { ClaimKind } from '../delivery-records.js';
import type { Decision } from '../../world/decision.js';
import type { Twin } from '../../world/twin.js';
import type { World } from '../../world/world.js';
import type { TransportRoutes } from '../transports/routes.js';
import type { SignedPacket } from './attempt.js';

export interface DispatchContext {
  readonly world: World;
  readonly owner: string;
  readonly leaseMs: number;
  readonly routes: TransportRoutes;
  readonly observers: ReadonlySet<(packet: SignedPacket) => void>;
  /** Once closed, heartbeats stop. */
  isClosed(): boolean;
  /** Decides and commits on the twin with the other decisions of this loop turn. */
  decide<T>(twin: Twin, decide: (view: ReadView) => Decision<T>): Promise<T>;
  /**
   * Claims the record again at `at` in this process — a retry at its due time, a send held to a
   * new slot (the worker finds it too, from the store).
   */
  scheduleClaim(packName: string, deliveryId: string, kind: ClaimKind, at: number): void;
}
