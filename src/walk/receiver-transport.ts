// Routes walk receivers' URLs (http://receivers.walk.invalid/<name>/…) to the fault-injecting
// receivers in this process. `.invalid` never resolves, so a packet meant for a receiver can
// never leak onto the network if a route is missing.
import { InProcessTransport } from '../events/transports/in-process-transport.js';
import { TransportFailure } from '../events/transports/transport.js';
import type { Clock } from '../world/clock.js';
import type { FaultReceiver } from './fault-receiver.js';

export const RECEIVERS_PREFIX = 'http://receivers.walk.invalid/';

export function receiverUrl(name: string): string {
  return `${RECEIVERS_PREFIX}${encodeURIComponent(name)}`;
}

/** The receiver a URL names, by the first path segment. */
function receiverName(url: string): string | undefined {
  if (!url.startsWith(RECEIVERS_PREFIX)) return undefined;
  const segment = url.slice(RECEIVERS_PREFIX.length).split(/[/?#]/)[0]!;
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

export function receiverTransport(
  clock: Clock,
  receivers: ReadonlyMap<string, FaultReceiver>,
): InProcessTransport {
  return new InProcessTransport(clock, (request) => {
    const name = receiverName(request.url);
    const receiver = name === undefined ? undefined : receivers.get(name);
    // Nothing listens at an unknown receiver: the sender sees a refused connection.
    if (receiver === undefined) throw new TransportFailure('not_sent');
    return receiver.handle(request);
  });
}
