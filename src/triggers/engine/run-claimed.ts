// Running a claimed attempt outside any lock: heartbeats while the routine runs, then the finish;
// STALE_OWNER when the claim was lost meanwhile, ROUTINE_FAILED when the routine threw.
import { TwinError } from '../../errors.js';
import { canonicalJson } from '../../log/canonical-json.js';
import { assertJson, MAX_JSON_DEPTH, type JsonValue } from '../../log/json-value.js';
import { keepAlive } from '../../work/heartbeat.js';
import type { TriggeredAnswer } from '../answer.js';
import { decideFinish, decideRunHeartbeat } from '../runs.js';
import type { RunOutcome, RunStartInfo } from '../runner.js';
import { MAX_RESULT_BYTES } from '../defaults.js';

import type { EngineCore } from './engine-core.js';
import { type TriggerRoute } from './engine-options.js';

/** Runs a claimed attempt outside any lock, then records its finish. */
export async function runClaimed(
  core: EngineCore,
  route: TriggerRoute,
  run: RunStartInfo,
  scheduledAt: string,
): Promise<TriggeredAnswer> {
  let outcome: RunOutcome;
  let cause: unknown;
  const { owner, leaseMs } = core.claimant;
  const stopBeats = keepAlive(
    core.world.clock,
    leaseMs,
    // A stopped engine's process is going away: its leases lapse and another worker takes over.
    async () =>
      !core.stopped() &&
      (await core.commits.submit((view, now) => decideRunHeartbeat(view, now, run, core.claimant))),
    (error) => core.world.reportError(error, `heartbeat of run ${run.recordId}`),
  );
  try {
    const input = await route.buildInput(run.envelope);
    assertJson(input, 'input', { maxDepth: MAX_JSON_DEPTH - 1 });
    const result = await core.runner.run({ ...run, input });
    outcome = { ok: true, result: checkResult(result) };
  } catch (error) {
    cause = error;
    outcome = { ok: false, error: errorCode(error) };
  } finally {
    stopBeats();
  }
  const recorder = core.runner.recorder;
  const finished = await core.commits.submit((view, now) =>
    decideFinish(view, now, run, outcome, recorder, owner),
  );
  if (!finished.current) {
    throw new TwinError(
      'STALE_OWNER',
      `run ${run.recordId} attempt ${run.attempt} lost its claim (its lease lapsed and ${finished.heldBy ?? 'another owner'} took the record over); its ${outcome.ok ? 'result' : 'failure'} is kept as a late observation on the record and the record's state did not move`,
      {
        details: {
          recordId: run.recordId,
          attempt: run.attempt,
          owner,
          heldBy: finished.heldBy ?? null,
        },
        ...(cause === undefined ? {} : { cause }),
      },
    );
  }
  if (!outcome.ok) {
    throw new TwinError(
      'ROUTINE_FAILED',
      `routine "${run.routineId}" for trigger "${run.envelope.triggerId}" did not finish (${outcome.error}) on attempt ${run.attempt}; the record is failed — a retry of the same delivery or recoverIncomplete("${run.envelope.tenantId}") runs it again`,
      {
        details: {
          recordId: run.recordId,
          dedupeKey: run.runKey,
          attempt: run.attempt,
          error: outcome.error,
        },
        cause,
      },
    );
  }
  return {
    status: 'triggered',
    tenantId: run.envelope.tenantId,
    triggerId: run.envelope.triggerId,
    dedupeKey: run.envelope.dedupeKey,
    recordId: run.recordId,
    scheduledAt,
    routineId: run.routineId,
    runKey: run.runKey,
    attempt: run.attempt,
    routineResult: outcome.result,
  };
}

function checkResult(result: JsonValue): JsonValue {
  const value = result === undefined ? null : result;
  // Kept at fields.result of the record: one level below the write's own limit.
  assertJson(value, 'routineResult', { maxDepth: MAX_JSON_DEPTH - 1 });
  const bytes = Buffer.byteLength(canonicalJson(value), 'utf8');
  if (bytes > MAX_RESULT_BYTES) {
    throw new TwinError(
      'PAYLOAD_TOO_LARGE',
      `routine result is ${bytes} bytes, over ${MAX_RESULT_BYTES}; answer a reference instead`,
      { path: 'routineResult' },
    );
  }
  return value;
}

/** A classification of what a routine threw; exception text never enters history. */
function errorCode(error: unknown): string {
  if (error instanceof TwinError) return error.code;
  if (error instanceof Error && /^[A-Za-z][A-Za-z0-9_]{0,63}$/.test(error.name)) return error.name;
  return 'THROWN';
}
