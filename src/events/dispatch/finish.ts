// Finishing one attempt: the outcome is recorded with the retry the pack's policy grants (an
// operator's redeliver is never retried by policy), a finish from a sender that lost its claim is
// kept as a late observation and reported STALE_OWNER, and a granted retry is scheduled here too.
import { TwinError } from '../../errors.js';
import { isoAt } from '../../world/clock.js';
import { decideAttemptFinish, readDelivery, STALE, type Finish } from '../delivery-records.js';
import { deliveryIds } from './delivery-ids.js';
import { cancelWrite, deliveryEndpointEnded } from '../endpoint-cancel.js';
import { finishHealthWrites } from '../health/finish-health.js';
import { commit, normalizeDecision } from '../../world/decision.js';
import { nextAttemptAt } from '../retry.js';
import type { Attempt, AttemptResult, Sent } from './attempt.js';
import type { DispatchContext } from './context.js';

export async function finishAttempt(
  ctx: DispatchContext,
  attempt: Attempt,
  sent: Sent,
): Promise<AttemptResult> {
  const { pack, twin, decl, deliveryId, claim } = attempt;
  const { outcome, reason, headers, response, durationMs } = sent;
  const status = response?.status ?? null;
  const now = ctx.world.clock.now();
  const retryAt =
    claim.kind === 'redeliver'
      ? undefined
      : nextAttemptAt(
          decl.retry,
          claim.number,
          outcome,
          status,
          now,
          () => deliveryIds(ctx.world.ids).random(),
          response?.retryAfterSec,
        );
  const finish: Finish = {
    outcome,
    status,
    reason,
    headers,
    ...(retryAt === undefined ? {} : { retryAt }),
  };
  const state = await ctx.decide(twin, (view) => {
    const { writes, result } = normalizeDecision(
      decideAttemptFinish(view, decl.recordType, deliveryId, claim, finish, isoAt(now)),
    );
    const record = readDelivery(view, decl.recordType, deliveryId);
    if (
      result === undefined ||
      result === STALE ||
      record === undefined ||
      claim.kind === 'redeliver'
    )
      return commit(writes, result);
    // The endpoint was removed or disabled while this attempt was out: the retry its policy granted
    // is cancelled in the same commit, as the disable cancelled the deliveries waiting then.
    const ended = result === 'retrying' ? deliveryEndpointEnded(view, decl, record) : undefined;
    return commit(
      [
        ...writes,
        ...(ended === undefined ? [] : [cancelWrite(decl.recordType, deliveryId, ended)]),
        ...finishHealthWrites(
          view,
          decl,
          record,
          claim.attemptId,
          { outcome, status, retryAfterSec: response?.retryAfterSec },
          now,
        ),
      ],
      ended === undefined ? result : 'cancelled',
    );
  });
  if (state === STALE) {
    ctx.world.reportError(
      new TwinError(
        'STALE_OWNER',
        `delivery ${deliveryId} attempt ${claim.number}: this sender (${claim.owner}) lost its claim before finishing — its lease lapsed and the attempt was taken over; what it saw (${outcome}${status === null ? '' : ` ${status}`}) is kept on the attempt as a late observation`,
        {
          path: 'delivery',
          details: { deliveryId, attempt: claim.number, owner: claim.owner ?? null },
        },
      ),
      'dispatch',
    );
  }
  if (state === 'retrying' && retryAt !== undefined)
    ctx.scheduleClaim(pack.name, deliveryId, 'retry', retryAt);
  return {
    pack: pack.name,
    deliveryId,
    attemptId: claim.attemptId,
    number: claim.number,
    kind: claim.kind,
    outcome,
    status,
    reason,
    state: state === STALE ? undefined : state,
    ...(retryAt === undefined || state === 'cancelled' ? {} : { retryAt: isoAt(retryAt) }),
    durationMs,
    ...(state === STALE ? { stale: true as const } : {}),
  };
}
