// twinworld/host: serving vendor API surfaces to the vendors' own SDKs — the surface declaration
// packs use, the host (one fetch handler) and its node:http listener. See docs/host.md.
export {
  answer,
  defineSurface,
  type ClockParticipant,
  type HttpMethod,
  type IdempotencyRule,
  type RenderedError,
  type Route,
  type RouteAnswer,
  type RouteContext,
  type Surface,
} from './surface/declaration.js';
export { cursorPage, type Page, type PageRequest } from './surface/pagination.js';
export {
  createHost,
  requestId,
  SurfaceHost,
  CONTROL_PREFIX,
  type HostOptions,
  type HostStats,
} from './host.js';
export { advanceWorld } from './control/clock.js';
export { jsonResponse, controlInput, type ControlHandler } from './control/respond.js';
export { listen, type Listening, type ListenOptions } from './node-server.js';
export { MAX_BODY_BYTES } from './request-body.js';
export type {
  IdempotencyStore,
  IdempotencyClaim,
  SavedAnswer,
} from '../storage/idempotency-store.js';
// The trigger host: the HTTP ingress, the serve configuration, the runtime and the schedule host.
export {
  startIngressHost,
  type IngressHost,
  type IngressHostOptions,
} from './ingress/ingress-host.js';
export { answerStatus, errorStatus, type HttpAnswer } from './ingress/status.js';
export { DispatchCapabilities, CAPABILITY_REF } from './ingress/dispatch-capability.js';
export {
  loadServeConfig,
  configFromFlags,
  validateServeConfig,
  DEFAULT_TENANT,
  type ServeConfig,
  type ConfigOptions,
  type TenantConfig,
  type EndpointConfig,
  type RouteConfig,
} from './serve/config.js';
export {
  createTriggerRuntime,
  type TriggerRuntime,
  type TriggerRuntimeOptions,
  type ListenOptions as RuntimeListenOptions,
} from './runtime/runtime.js';
export {
  startServe,
  startTriggerRuntime,
  type ServeOptions,
  type ServeHandle,
} from './serve/serve.js';
export {
  builtInRunner,
  scheduleHostWork,
  type ScheduleHostOptions,
} from './runtime/schedule-host.js';
