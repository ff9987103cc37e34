// One claimed attempt end to end: heartbeats keep its lease while it is signed and sent, then the
// finish records what came of it. The attempt value is all each step needs.
import { keepAlive } from '../../work/heartbeat.js';
import { decideDeliveryHeartbeat } from '../delivery-records.js';
import { notSent, type Attempt, type AttemptResult, type Sent } from './attempt.js';
import type { DispatchContext } from './context.js';
import { finishAttempt } from './finish.js';
import { sendAttempt } from './send.js';
import { signAttempt } from './sign.js';

export async function runAttempt(ctx: DispatchContext, attempt: Attempt): Promise<AttemptResult> {
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
  let sent: Sent;
  try {
    const signed = await signAttempt(ctx, attempt, sentAt);
    // Never send an unsigned packet: the attempt fails before any request is made.
    sent =
      typeof signed === 'string'
        ? notSent('failed', signed)
        : await sendAttempt(ctx, attempt, transport, signed);
  } finally {
    stopBeats();
  }
  return finishAttempt(ctx, attempt, sent);
}
