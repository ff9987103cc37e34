// One claimed attempt end to end: heartbeats keep its lease while it is signed and sent, then the
// finish records what came of it. The attempt value is all each step needs. An attempt in a rate
// slot is checked against the world clock just before its request leaves: one that would leave
// too late for its slot is not sent, and its delivery books a new slot (health/late-send.ts).
import { keepAlive } from '../../work/heartbeat.js';
import { decideDeliveryHeartbeat } from '../delivery-records.js';
import { decideLateSend, holdsBackLate } from '../health/late-send.js';
import { lateForSlot } from '../health/pace.js';
import { notSent, type Attempt, type AttemptResult, type Sent } from './attempt.js';
import type { DispatchContext } from './context.js';
import { finishAttempt } from './finish.js';
import { sendAttempt } from './send.js';
import { signAttempt } from './sign.js';

/**
 * A worker's send slot for an attempt claimed ahead of one: `take` answers undefined when it got
 * one at once, else a promise of it. `leaseUntil` is the claim's lease end as claimed (epoch ms).
 */
export interface SlotWait {
  take(): Promise<void> | undefined;
  readonly leaseUntil: number;
}

/**
 * `sent` is called when the send is over and only the finish is left, just before the finish is
 * submitted: what it starts in the same turn (the next claim) can join the finish's section.
 * `leaving` is called once the request is past the slot check (as it starts, or once a late one
 * is held to its new slot), or when it begins to wait for a send slot: a virtual clock may move
 * on then. Undefined when the attempt was not sent: too late for its rate slot, or its claim lost
 * while it waited for a send slot (whoever took it over finishes it).
 * `slot`, when given, is a worker's send slot the attempt was claimed ahead of (work/worker.ts),
 * taken before the packet is signed, so the packet's timestamp is taken after any wait for it.
 */
export async function runAttempt(
  ctx: DispatchContext,
  attempt: Attempt,
  sent?: () => void,
  leaving?: () => void,
  slot?: SlotWait,
): Promise<AttemptResult | undefined> {
  const { twin, decl, deliveryId, claim } = attempt;
  const transport = ctx.routes.for(attempt.record.url);
  const clock = ctx.world.clock;
  // What the beats learnt: until when the lease is known to run, and whether the claim was lost.
  let heldUntil = slot?.leaseUntil ?? Number.NEGATIVE_INFINITY;
  let lost = false;
  const beat = async (): Promise<boolean> => {
    let at = 0;
    const held = await ctx.decide(twin, (view) =>
      decideDeliveryHeartbeat(
        view,
        decl.recordType,
        deliveryId,
        claim,
        (at = clock.now()),
        ctx.leaseMs,
      ),
    );
    if (held) heldUntil = at + ctx.leaseMs;
    else lost = true;
    return held;
  };
  const stopBeats = keepAlive(
    clock,
    ctx.leaseMs,
    async () => !ctx.isClosed() && (await beat()),
    (error) => ctx.world.reportError(error, `heartbeat of delivery ${deliveryId}`),
  );
  let result: Sent;
  try {
    const waiting = slot?.take();
    if (waiting !== undefined) {
      // Another send must end first, and it may need a virtual clock to move: let it move.
      leaving?.();
      await waiting;
      // The wait may have outlasted the lease (beats failing, a closed dispatcher's beats stopped)
      // and another sender may have taken the attempt over: it leaves only under a claim still
      // held for a beat's span, confirmed under the twin's lock when that is not known.
      const confirmed = !lost && (clock.now() + ctx.leaseMs / 3 < heldUntil || (await beat()));
      if (!confirmed) {
        stopBeats();
        sent?.();
        return undefined;
      }
    }
    const sentAt = transport.now();
    const signed = await signAttempt(ctx, attempt, sentAt);
    if (
      typeof signed !== 'string' &&
      attempt.slot !== undefined &&
      holdsBackLate(attempt.record, claim.number) &&
      lateForSlot(attempt.slot, ctx.world.clock.now())
    ) {
      // Nothing between this check and the request but the observers and the transport's
      // synchronous start of the request (send.ts).
      signed.trace.end(false);
      stopBeats();
      await handBack(ctx, attempt);
      leaving?.();
      sent?.();
      return undefined;
    }
    leaving?.();
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

/**
 * How many times a rebook is tried before it is given up. A store error in between (a lost
 * connection, a busy file) is most often gone at the next try; if it is not, the claim is left
 * to its lease, and whoever takes it over finishes it as a sender that stopped (recover.ts).
 */
const REBOOK_TRIES = 3;

/**
 * Undoes an attempt's claim before it is sent (it came too late for its slot, or its dispatcher
 * closes while it waits for it) and holds its delivery to a new slot, claimed again here when that
 * comes unless the dispatcher is closed.
 */
export async function handBack(ctx: DispatchContext, attempt: Attempt): Promise<void> {
  const { pack, twin, decl, deliveryId, claim } = attempt;
  for (let tries = 1; ; tries++) {
    // The clock is read in the section, once, as at a claim (claim.ts): the slot is booked then.
    let now: number | undefined;
    try {
      const held = await ctx.decide(twin, (view) =>
        decideLateSend(view, decl, deliveryId, claim, (now ??= ctx.world.clock.now())),
      );
      if (held !== undefined) ctx.scheduleClaim(pack.name, deliveryId, claim.kind, held.until);
      return;
    } catch (error) {
      if (tries === REBOOK_TRIES || ctx.isClosed()) throw error;
      ctx.world.reportError(error, `holding late delivery ${deliveryId} to a new slot`);
    }
  }
}
