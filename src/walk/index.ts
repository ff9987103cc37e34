// Walks: seeded worlds on a virtual clock, fault-injecting receivers, reports and golden logs.
export { Walk, openWalk, DEFAULT_WALK_START, type WalkOptions } from './walk.js';
export { WalkClock, type Ticker } from './walk-clock.js';
export {
  FaultReceiver,
  type ReceivedRequest,
  type ReceiverStats,
  type PacketIdentity,
} from './fault-receiver.js';
export {
  validateFaultProfile,
  checkFault,
  faultLabel,
  FAULT_KINDS,
  type Fault,
  type FaultProfile,
  type WeightedFault,
} from './fault-profile.js';
export { RECEIVERS_PREFIX, receiverUrl } from './receiver-transport.js';
export { mountPrefix } from './mount-transport.js';
export {
  startWalkTriggers,
  type WalkTriggers,
  type WalkTriggersOptions,
  type WalkRoute,
} from './walk-triggers.js';
export {
  startWalkSchedules,
  type WalkSchedules,
  type WalkSchedulesOptions,
} from './walk-schedules.js';
export { exportWorldLines, worldHashes } from './export-log.js';
export {
  checkDeliveryInvariants,
  type InvariantReport,
  type InvariantViolation,
  type InvariantRule,
} from './invariants.js';
export {
  checkFixture,
  writeFixture,
  checkFixtureName,
  type FixtureMeta,
  type GoldenCheck,
} from './golden.js';
export type { WalkReport, DeliveryReport, AttemptReport, ReceiverReport } from './report.js';
export {
  triggerReport,
  formatTriggers,
  type TriggerReport,
  type TriggerDecision,
  type OccurrenceReport,
} from './trigger-report.js';
export { formatReport, type FormatOptions } from './format-report.js';
export {
  loadWalkModule,
  runWalkModule,
  type WalkFunction,
  type WalkModuleOptions,
  type LoadedWalk,
  type RunWalkOptions,
} from './walk-module.js';
