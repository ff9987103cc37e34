// Recovery: re-runs a tenant's `processing` (lease lapsed) and `failed` records from their stored
// envelopes, each claimed in one atomic action so racing recoveries run each record once.
import { TwinError } from '../../errors.js';
import { isoAt } from '../../world/clock.js';
import {
  RECORD_TYPE,
  RECOVERY_INDEX,
  recoveryKey,
  triggerRecordOf,
  type RecordFields,
} from '../trigger-records.js';
import { decideRecover, runClaimFree } from '../runs.js';

import type { EngineCore } from './engine-core.js';
import { type RecoveredRun, type TriggerRecoveryReport } from './engine-options.js';
import { runClaimed } from './run-claimed.js';

export async function recoverTenant(
  core: EngineCore,
  tenantId: string,
  staleAfterMs: number,
): Promise<TriggerRecoveryReport> {
  const report: TriggerRecoveryReport = { tenantId, recovered: [], skipped: [] };
  for (const from of ['processing', 'failed'] as const) {
    for (const resource of await core.twin.lookup(
      RECORD_TYPE,
      RECOVERY_INDEX,
      recoveryKey(from, tenantId),
    )) {
      const outcome = await recoverOne(
        core,
        resource.id,
        triggerRecordOf(resource),
        from,
        staleAfterMs,
      );
      if ('reason' in outcome) report.skipped.push(outcome);
      else report.recovered.push(outcome);
    }
  }
  return report;
}

export async function recoverOne(
  core: EngineCore,
  id: string,
  seen: RecordFields,
  from: 'processing' | 'failed',
  staleAfterMs: number,
): Promise<RecoveredRun | TriggerRecoveryReport['skipped'][number]> {
  const route = core.routeFor(seen.envelope.triggerId);
  if (route === undefined) return { recordId: id, reason: 'UNKNOWN_TRIGGER' };
  const staleBefore = isoAt(core.world.clock.now() - staleAfterMs);
  const recorder = core.runner.recorder;
  const run = await core.commits.submit((view, now) =>
    decideRecover(
      view,
      now,
      id,
      { state: from, attempts: seen.attempts },
      route.routineId,
      staleBefore,
      recorder,
      core.claimant,
    ),
  );
  if (run === undefined) {
    const notStale =
      from === 'processing' && !runClaimFree(seen, core.world.clock.now(), staleBefore);
    return { recordId: id, reason: notStale ? 'not_stale' : 'claimed_elsewhere' };
  }
  const entry = {
    recordId: id,
    dedupeKey: seen.envelope.dedupeKey,
    triggerId: seen.envelope.triggerId,
    attempt: run.attempt,
    from,
  };
  try {
    const answer = await runClaimed(core, route, run, seen.envelope.scheduledAt);
    return { ...entry, status: 'triggered', routineResult: answer.routineResult, error: null };
  } catch (error) {
    if (error instanceof TwinError && error.code === 'STALE_OWNER')
      return { recordId: id, reason: 'claimed_elsewhere' };
    if (!(error instanceof TwinError) || error.code !== 'ROUTINE_FAILED') throw error;
    return {
      ...entry,
      status: 'failed',
      routineResult: null,
      error: String(error.details?.error ?? 'ROUTINE_FAILED'),
    };
  }
}
