// Recording a reservation's result (launched, completed, failed), refusing an owner that lost
// the occurrence STALE_OWNER after keeping what it said as a late observation.
import { TwinError } from '../../errors.js';
import { canonicalJson } from '../../log/canonical-json.js';
import { assertJson, MAX_JSON_DEPTH, type JsonValue } from '../../log/json-value.js';

import { MAX_RESULT_BYTES } from '../defaults.js';
import { authorize, contextArgument, type TriggerContext } from '../tenant-context.js';
import { type Reservation } from './claim.js';
import { decideResult, type FireResult, type ResultAnswer } from './result.js';

import { type ScheduleService, refuse, checkReservation } from './schedule-service.js';

/**
 * Records a reservation's result: `launched` (with the run id that replaces the reservation),
 * then `completed` or `failed`. From an owner that lost the occurrence it is refused STALE_OWNER
 * after what it reported is kept on the ledger row as a late observation.
 */
export async function recordResult(
  svc: ScheduleService,
  held: Reservation,
  result: FireResult,
  context?: TriggerContext,
): Promise<ResultAnswer> {
  checkReservation(held);
  const checked = checkResult(result);
  authorize(contextArgument(context), held.tenantId, 'ingest', 'record occurrence results');
  return settle(svc, held, checked);
}

export async function settle(
  svc: ScheduleService,
  held: Reservation,
  result: FireResult,
): Promise<ResultAnswer> {
  const nowMs = svc.now();
  const recorder = svc.runner?.recorder;
  const answer = await svc.decide((view) =>
    decideResult(view, nowMs, held, result, svc.leaseMs, recorder),
  );
  if (!answer.current)
    throw new TwinError(
      'STALE_OWNER',
      `occurrence ${held.occurrenceId} of schedule "${held.scheduleId}" is no longer held by ${held.owner} (fence ${held.fence}): it is ${answer.state}${answer.heldBy === null ? '' : `, held by ${answer.heldBy}`}; the ${result.outcome} result is kept on the ledger row as a late observation and nothing moved`,
      {
        path: 'reservation',
        details: {
          occurrenceId: held.occurrenceId,
          owner: held.owner,
          fence: held.fence,
          state: answer.state,
          outcome: answer.outcome,
          heldBy: answer.heldBy,
        },
      },
    );
  return answer;
}

/** A classification of what a routine threw; exception text never enters history. */
export function errorCode(error: unknown): string {
  if (error instanceof TwinError) return error.code;
  if (error instanceof Error && /^[A-Za-z][A-Za-z0-9_]{0,63}$/.test(error.name)) return error.name;
  return 'THROWN';
}

export function checkRunResult(value: unknown): JsonValue {
  const result = value === undefined ? null : value;
  assertJson(result, 'result', { maxDepth: MAX_JSON_DEPTH - 2 });
  const bytes = Buffer.byteLength(canonicalJson(result), 'utf8');
  if (bytes > MAX_RESULT_BYTES)
    throw new TwinError(
      'PAYLOAD_TOO_LARGE',
      `routine result is ${bytes} bytes, over ${MAX_RESULT_BYTES}; answer a reference instead`,
      { path: 'result' },
    );
  return result;
}

function checkResult(result: FireResult): FireResult {
  if (result === null || typeof result !== 'object')
    refuse(
      'INVALID_OPTIONS',
      'result',
      "result must be { outcome: 'launched', runId } or { outcome: 'completed', result? } or { outcome: 'failed', error }",
    );
  const runId: unknown = (result as { runId?: unknown }).runId;
  if (
    runId !== undefined &&
    (typeof runId !== 'string' || runId.trim() === '' || runId.length > 256)
  )
    refuse(
      'INVALID_OPTIONS',
      'runId',
      'runId must be a non-empty string of at most 256 characters',
    );
  switch (result.outcome) {
    case 'launched':
      if (runId === undefined)
        refuse(
          'INVALID_OPTIONS',
          'runId',
          'launched requires the run id that replaces the reservation',
        );
      return { outcome: 'launched', runId: runId as string };
    case 'completed':
      return {
        outcome: 'completed',
        result: checkRunResult(result.result),
        ...(runId === undefined ? {} : { runId: runId as string }),
      };
    case 'failed':
      if (typeof result.error !== 'string' || !/^[A-Za-z][A-Za-z0-9_.:-]{0,63}$/.test(result.error))
        refuse(
          'INVALID_OPTIONS',
          'error',
          'a failed result names an error code (letters, digits, _ . : -), never exception text',
        );
      return {
        outcome: 'failed',
        error: result.error,
        ...(runId === undefined ? {} : { runId: runId as string }),
      };
    default:
      return refuse(
        'INVALID_OPTIONS',
        'outcome',
        `outcome must be launched, completed or failed, not ${JSON.stringify((result as { outcome?: unknown }).outcome)}`,
      );
  }
}
