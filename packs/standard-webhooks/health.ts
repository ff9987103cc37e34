// Svix's rules, which Standard Webhooks senders follow: an endpoint failing for five days is
// disabled and an `endpoint.disabled` operational webhook is sent
// (https://docs.svix.com/retries#disabling-failing-endpoints); an endpoint may carry its own
// `throttleRate` in messages per second (https://docs.svix.com/throttling). Svix keeps no breaker.
import type { EventsDeclaration } from '../../src/index.js';

export const SVIX_HEALTH: NonNullable<EventsDeclaration['health']> = {
  source: 'https://docs.svix.com/retries#disabling-failing-endpoints',
  disable: {
    afterMs: 5 * 24 * 3_600_000,
    minFailures: 4,
    announce: 'event',
    eventType: 'endpoint.disabled',
  },
};
