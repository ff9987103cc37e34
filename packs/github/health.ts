// GitHub keeps a repository or organization hook however often it fails: a failed delivery is
// marked failed, never retried, and stays listed for an operator's redelivery
// (https://docs.github.com/en/webhooks/using-webhooks/handling-failed-webhook-deliveries). So the
// pack declares no disabling, only the timeout GitHub gives a receiver (10 s) as its breaker's
// unit: three timeouts or refused connections in a row pause the hook for a minute.
import type { EventsDeclaration } from '../../src/index.js';

export const GITHUB_HEALTH: NonNullable<EventsDeclaration['health']> = {
  source: 'https://docs.github.com/en/webhooks/using-webhooks/handling-failed-webhook-deliveries',
  breaker: { failures: 3, pauseMs: 60_000 },
};
