// Declared events and the send-once dispatcher.
export * from './declaration.js';
export * from './retry.js';
export * from './records.js';
export * from './dispatcher.js';
export * from './trace.js';
export { filterKeysFor, filterTakes } from './filter.js';
export { renderTemplate } from './render.js';
export { EVENTS_INDEX, endpointsFor, renderEvents } from './fan-out.js';
export { endpointMatches, type EndpointMatch, type FieldMatch } from './endpoint-match.js';
export { packetGap, type PacketPart } from './packet.js';
export * from './transports/transport.js';
export { HttpTransport, type HttpTransportOptions } from './transports/http-transport.js';
export { InProcessTransport, type InProcessHandler, type InProcessRequest } from './transports/in-process-transport.js';
export * from './signing/index.js';
