// One claimed attempt end to end: heartbeats keep its lease while it is signed and sent, then the
// finish records what came of it. The attempt value is all each step needs.
import { keepAlive } from '../../work/heartbeat.js';
import { decideDeliveryHeartbeat } from '../delivery-records.js';
import { notSent, type Attempt, type AttemptResult, type Sent } from './attempt.js';
import type { DispatchContext } from './context.js';
import { finishAttempt } from './finish.js';
import { sendAttempt } from './send.js';
import { signAttempt } from './sign.js';

/**
 * `sent` is called when the send is over and only the finish is left, just before the finish is
 * submitted: what it starts in the same turn (the next claim) can join the finish's section.
 */
export async function runAttempt(
  ctx: DispatchContext,
  attempt: Attempt,
  sent?: () => void,
): Promise<AttemptResult> {
  const { twin, decl, deliveryId, claim } = attempt;
  const transport = ctx.routes.for(attempt.record.url);
  const sentAt = transport.now();
  const stopBeats = keepAlive(
    ctx.world.clock,
    ctx.leaseMs,
    async () =>
      !ctx.isClosed() &&
      (await ctx.decide(twin, (view) =>
        decideDeliveryHeartbeat(
          view,
          decl.recordType,
          deliveryId,
          claim,
          ctx.world.clock.now(),
          ctx.leaseMs,
        ),
      )),
    (error) => ctx.world.reportError(error, `heartbeat of delivery ${deliveryId}`),
  );
  let result: Sent;
  try {
    const signed = await signAttempt(ctx, attempt, sentAt);
    // Never send an unsigned packet: the attempt fails before any request is made.
    result =
      typeof signed === 'string'
        ? notSent('failed', signed)
        : await sendAttempt(ctx, attempt, transport, signed);
  } finally {
    stopBeats();
  }
  const finishing = finishAttempt(ctx, attempt, result);
  sent?.();
  return finishing;
}
