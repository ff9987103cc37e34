// twinworld/testing: parts for tests and tools — the in-memory backend, in-process transport and
// secret store, seeded ids, and the checks golden logs are held to.
export { MemoryBackend } from './storage/memory/memory-backend.js';
export {
  InProcessTransport,
  type InProcessHandler,
  type InProcessRequest,
} from './events/transports/in-process-transport.js';
export { MemorySecretStore } from './world/secrets.js';
export { RandomIds, SeededIds } from './world/ids.js';
export {
  checkDeliveryInvariants,
  type InvariantReport,
  type InvariantViolation,
  type InvariantRule,
} from './walk/invariants.js';
export { checkFixture, writeFixture, type FixtureMeta, type GoldenCheck } from './walk/golden.js';
