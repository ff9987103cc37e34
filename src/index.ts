// twinworld's root entry: what a walk author, a pack author and a test author use. Everything
// else lives behind a subpath (twinworld/triggers, /schedules, /deferred, /host, /walk, /signing,
// /sqlite, /postgres, /testing, /packs) or stays internal; see docs/layout.md, "Entry points".
export { TwinError, isTwinError, type TwinErrorCode } from './errors.js';
export type { JsonValue, JsonObject } from './log/json-value.js';
export { canonicalJson, sha256Hex } from './log/canonical-json.js';
export {
  MAX_WRITE_BYTES,
  type Write,
  type Entry,
  type Projection,
  type ResourceRef,
  type ProjectedResource,
} from './log/write.js';
export type { Resource } from './state/resource.js';
export type { ReadView } from './state/read-view.js';
export type { IndexDeclaration } from './state/indexes.js';
export { recordKind, type RecordKind } from './state/record-kind.js';
export type { StorageBackend, TwinStore } from './storage/port.js';
export { RealClock, VirtualClock, isoAt, type Clock } from './world/clock.js';
export type { IdSource } from './world/ids.js';
export type { SecretStore, SecretResolver } from './world/secrets.js';
export { commit, skip, type Decision } from './world/decision.js';
export type { Twin, TwinHost, AtomicResult } from './world/twin.js';
export { openWorld, currentWorld, type World, type WorldOptions } from './world/world.js';
export { replayLines, type ReplayResult } from './world/replay.js';
export {
  registerPack,
  registeredPacks,
  getPack,
  packTwinName,
  type Pack,
} from './events/pack-registry.js';
export type {
  EventsDeclaration,
  EndpointKind,
  RenderContext,
  HeaderContext,
} from './events/declaration.js';
export type { RetryPolicy, AttemptOutcome } from './events/retry.js';
export { Dispatcher, type DispatcherOptions, type SignedPacket } from './events/dispatcher.js';
export { HttpTransport } from './events/transports/http-transport.js';
export type { Transport } from './events/transports/transport.js';
export { withTraceContext } from './events/trace.js';
export { runSending } from './events/send-scope.js';
export { openWalk, type Walk, type WalkOptions } from './walk/walk.js';
