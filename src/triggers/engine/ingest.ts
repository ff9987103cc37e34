// Ingest: routes one checked envelope, records a refusal for an unknown trigger, decides receive
// (or a deferred receive) in one group-committed action, and runs what it claimed.
import { TwinError } from '../../errors.js';
import { commit } from '../../world/decision.js';
import type { IngestAnswer } from '../answer.js';
import { type TriggerEnvelope } from '../envelope.js';
import { envelopeIdentity, type ReplayGuard } from '../trigger-records.js';
import { type Refusal, refusalWrite } from '../receipts.js';
import { decideReceive } from '../receive.js';
import { mergeDispatch, type CheckedDispatch } from '../deferred/dispatch-options.js';
import { planDispatch } from '../deferred/dispatch-plan.js';
import { decideDeferredReceive } from '../deferred/receive-deferred.js';

import type { EngineCore } from './engine-core.js';
import { runClaimed } from './run-claimed.js';

export async function ingestEnvelope(
  core: EngineCore,
  env: TriggerEnvelope,
  guard: ReplayGuard | undefined,
  callDispatch: CheckedDispatch | undefined,
): Promise<IngestAnswer> {
  const route = core.routeFor(env.triggerId);
  if (route === undefined) {
    const error = new TwinError(
      'UNKNOWN_TRIGGER',
      `no route for trigger "${env.triggerId}"; register one with engine.registerRoute({triggerId: "${env.triggerId}", routineId, buildInput})`,
      {
        path: 'triggerId',
        details: { triggerId: env.triggerId },
      },
    );
    // A checked envelope with nowhere to go: kept with its key, it works once a route exists.
    await core.commits.submit((view, now) =>
      commit(refusalWrite(view, now, refusalOf(env, error))),
    );
    throw error;
  }
  const filtered = route.filter !== undefined && !route.filter(env);
  const recorder = core.runner.recorder;
  const dispatch = mergeDispatch(core.dispatchFor(env.triggerId), callDispatch);
  // Keys come from host code (a key function), so they are read before the decision.
  const plan = dispatch === undefined || filtered ? undefined : planDispatch(dispatch, env);
  const choice = { routineId: route.routineId, filtered };
  const outcome = await core.commits.submit((view, now) =>
    plan === undefined
      ? decideReceive(view, now, env, choice, recorder, core.claimant, guard)
      : decideDeferredReceive(view, now, env, choice, plan, recorder, core.claimant, guard),
  );
  if (outcome.kind === 'answered') {
    if (outcome.repeat !== undefined) await core.countRepeat(outcome.repeat);
    return outcome.answer;
  }
  if (outcome.kind === 'conflict') throw outcome.error;
  return runClaimed(core, route, outcome.run, outcome.scheduledAt);
}

export function checkGuard(guard: ReplayGuard | undefined): ReplayGuard | undefined {
  if (guard === undefined) return undefined;
  if (
    guard === null ||
    typeof guard !== 'object' ||
    typeof guard.key !== 'string' ||
    guard.key === '' ||
    guard.key.length > 512
  ) {
    throw new TwinError(
      'INVALID_ARGUMENT',
      'replayGuard.key must be a non-empty string of at most 512 characters naming the signed content',
      { path: 'replayGuard.key' },
    );
  }
  if (!Number.isSafeInteger(guard.windowMs) || guard.windowMs < 1) {
    throw new TwinError(
      'INVALID_ARGUMENT',
      'replayGuard.windowMs must be a positive integer number of milliseconds',
      { path: 'replayGuard.windowMs' },
    );
  }
  return { key: guard.key, windowMs: guard.windowMs };
}

function refusalOf(env: TriggerEnvelope, error: TwinError): Refusal {
  return { ...envelopeIdentity(env), error };
}
