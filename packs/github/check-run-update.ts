// Updating a check run short of completing it — GitHub's PATCH without a conclusion: its name,
// details_url, external_id, output, and its status from queued to in_progress (the suite follows).
// GitHub sends no webhook for such an update (check_run's actions are created, completed,
// rerequested and requested_action), so the operation has no event; completing is
// completeCheckRun (checks.ts).
import { commit, skip, type Twin } from '../../src/index.js';
import { requirePackTwin } from '../kit/twin-checks.js';
import { actorOf, findUser } from './accounts.js';
import { appActor, appKind } from './apps.js';
import { checkRunKind, checkSuiteKind, outputOf, type CheckRunOutput } from './checks.js';
import { notFound, validationFailed } from './errors.js';
import { githubTime } from './ids.js';
import { findRepository } from './repositories.js';

export interface UpdateCheckRunInput {
  repository: string;
  check_run_id: number;
  name?: string;
  status?: 'queued' | 'in_progress';
  /** Replaces the run's output (title, summary and text) as a whole. */
  output?: CheckRunOutput;
  details_url?: string;
  external_id?: string;
  /** As for createCheckRun: omitted, the run's app acted itself. */
  sender?: string;
}

export async function updateCheckRun(twin: Twin, input: UpdateCheckRunInput) {
  requirePackTwin(twin, 'github');
  if (input.name !== undefined && (typeof input.name !== 'string' || input.name.trim() === ''))
    throw validationFailed('name must not be blank', 'name');
  if (input.status !== undefined && input.status !== 'queued' && input.status !== 'in_progress')
    throw validationFailed(
      'status must be "queued" or "in_progress" (complete a run with a conclusion)',
      'status',
    );
  const done = await twin.applyAtomic((view) => {
    const repo = findRepository(view, input.repository);
    const run = checkRunKind.read(view, input.check_run_id);
    if (run === undefined || run.repository_id !== repo.id)
      throw notFound(`check run ${input.check_run_id} in ${repo.full_name}`, 'check_run_id');
    if (input.status !== undefined && run.status === 'completed')
      throw validationFailed(
        `check run ${run.id} is completed; its status can no longer change`,
        'status',
      );
    const fields = {
      ...(input.name === undefined ? {} : { name: input.name }),
      ...(input.status === undefined ? {} : { status: input.status }),
      ...(input.output === undefined ? {} : { output: outputOf(input.output) }),
      ...(input.details_url === undefined ? {} : { details_url: input.details_url }),
      ...(input.external_id === undefined ? {} : { external_id: input.external_id }),
    };
    if (Object.keys(fields).length === 0) return skip(run);
    const actor =
      input.sender === undefined
        ? appActor(appKind.read(view, run.app_id)!)
        : actorOf(findUser(view, input.sender));
    // A run that starts puts a queued suite in progress, as a new in-progress run does.
    const suite = checkSuiteKind.read(view, run.check_suite_id);
    const starts = input.status === 'in_progress' && suite?.status === 'queued';
    const now = githubTime(twin.world.clock.now());
    return commit(
      {
        operation: 'check_run.update',
        subjectType: 'check_run',
        subjectId: String(run.id),
        fields,
        actor,
        ...(starts
          ? {
              projection: {
                updates: [
                  {
                    type: 'check_suite',
                    id: String(run.check_suite_id),
                    fields: { status: 'in_progress', updated_at: now },
                  },
                ],
              },
            }
          : {}),
      },
      { ...run, ...fields },
    );
  });
  return done.result;
}
