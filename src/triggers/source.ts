// The trigger source contract: anything that turns outside events into envelopes (a calendar,
// a webhook ingress, host code). The engine connects sources on start and disconnects them on
// stop; a source never starts a timer of its own — the host decides when it runs. A source sees
// the engine only through SourceHost, so sources and the engine do not import each other.
import type { Twin, TwinHost } from '../world/twin.js';
import type { IngestAnswer } from './answer.js';
import type { TriggerEnvelope } from './envelope.js';
import type { ReplayGuard } from './trigger-records.js';
import type { Refusal } from './receipts.js';
import type { TriggerContext } from './tenant-context.js';

/** What a connected source may use of the engine. */
export interface SourceHost {
  readonly world: TwinHost;
  /** The trigger twin every decision is written to. */
  readonly twin: Twin;
  readonly running: boolean;
  ingest(
    envelope: TriggerEnvelope,
    context?: TriggerContext,
    options?: { readonly replayGuard?: ReplayGuard },
  ): Promise<IngestAnswer>;
  recordRefusal(refusal: Refusal, context?: TriggerContext): Promise<void>;
}

export interface TriggerSource {
  /** Unique among one engine's sources, e.g. "calendar" or "webhook". */
  readonly name: string;
  connect?(host: SourceHost): void | Promise<void>;
  disconnect?(): void | Promise<void>;
}
