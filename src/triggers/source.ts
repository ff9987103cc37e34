// The trigger source contract: anything that turns outside events into envelopes (a calendar,
// a webhook ingress, host code). The engine connects sources on start and disconnects them on
// stop; a source never starts a timer of its own — the host decides when it runs.
import type { TriggerEngine } from './engine.js';

export interface TriggerSource {
  /** Unique among one engine's sources, e.g. "calendar" or "webhook". */
  readonly name: string;
  connect?(engine: TriggerEngine): void | Promise<void>;
  disconnect?(): void | Promise<void>;
}
