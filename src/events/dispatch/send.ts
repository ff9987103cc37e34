// Sending one signed attempt: observers see the packet first, then the transport carries it, and
// what came back is classified — 2xx accepted, another status refused, no answer `unknown` (it may
// have arrived) unless the request provably never left.
import { performance } from 'node:perf_hooks';
import { TransportFailure, type Transport } from '../transports/transport.js';
import { notSent, type Attempt, type Sent, type SignedPacket } from './attempt.js';
import type { DispatchContext } from './context.js';
import type { Signed } from './sign.js';
import type { AttemptOutcome } from '../retry.js';

/** How long an attempt waits for the receiver's answer when its pack does not say. */
export const DEFAULT_TIMEOUT_MS = 10_000;

/** 2xx accepted, other real statuses refused; a number outside 100–599 means nothing was understood. */
function classifyStatus(status: number): { outcome: AttemptOutcome; reason: string } {
  if (!Number.isInteger(status) || status < 100 || status > 599)
    return { outcome: 'unknown', reason: 'invalid_status' };
  return { outcome: status >= 200 && status < 300 ? 'succeeded' : 'failed', reason: 'http_status' };
}

/** Shows the packet to observers, sends it and classifies what came back. */
export async function sendAttempt(
  ctx: DispatchContext,
  attempt: Attempt,
  transport: Transport,
  { headers, trace }: Signed,
): Promise<Sent> {
  const { record, claim } = attempt;
  const packet: SignedPacket = {
    twin: attempt.twin.name,
    pack: attempt.pack.name,
    deliveryId: attempt.deliveryId,
    attempt: claim.number,
    eventType: record.eventType,
    url: record.url,
    headers,
    body: record.body,
  };
  for (const observer of ctx.observers) {
    try {
      observer(packet);
    } catch (error) {
      ctx.world.reportError(error, 'delivery observer');
    }
  }
  const started = performance.now();
  let sent: Sent;
  try {
    const response = await transport.send({
      url: record.url,
      headers,
      body: record.body,
      timeoutMs: attempt.decl.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    });
    sent = { ...classifyStatus(response.status), response, headers, durationMs: 0 };
  } catch (error) {
    const kind = error instanceof TransportFailure ? error.kind : 'connection_error';
    // A request that provably never left is a plain failure; any other may have arrived.
    sent = notSent(kind === 'not_sent' ? 'failed' : 'unknown', kind, headers);
  }
  // Tenths of a millisecond: what a timer on this path can tell apart, and what a person reads.
  sent = { ...sent, durationMs: Math.round((performance.now() - started) * 10) / 10 };
  trace.end(sent.outcome === 'succeeded');
  return sent;
}
