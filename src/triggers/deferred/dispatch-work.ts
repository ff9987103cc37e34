// Deferred dispatches as work for the worker (docs/work.md): due ones are found through the due-time
// index, each is stepped in an atomic action (expire, queue at its gate, drop, or dispatch — the
// claim that starts its run under a lease), the claimed run is run by the engine, and the dispatch
// is settled. Because everything a step decides is in the store, a restart loses nothing, two
// workers never dispatch one twice, and a dispatch runs in its own world whichever is active.
import { describeValue, TwinError } from '../../errors.js';
import { isoAt } from '../../world/clock.js';
import { runInWorld } from '../../world/world.js';
import { dueIndexWork } from '../../work/due-index-work.js';
import type { DueItem, WorkKind, WorkReport } from '../../work/work-kind.js';
import type { DispatchHost } from './dispatch-host.js';
import type { RunStartInfo } from '../runner.js';
import { dispatchKind, readDispatch } from './dispatch-record.js';
import { decideSettle, decideStep, type StepResult } from './dispatch-step.js';

export const DISPATCH_WORK = 'trigger-dispatch';

export interface ClaimedDispatch {
  readonly id: string;
  readonly run: RunStartInfo;
  readonly scheduledAt: string;
}

export interface DispatchWork extends WorkKind {
  /** One atomic step of a due dispatch; a `claimed` result is then `execute`d. */
  step(id: string): Promise<StepResult>;
  /** Runs a claimed dispatch's routine (in the engine's world) and settles the dispatch. */
  execute(claimed: ClaimedDispatch): Promise<WorkReport>;
}

export function deferredDispatchWork(engine: DispatchHost): DispatchWork {
  if (typeof (engine as Partial<DispatchHost> | null | undefined)?.world?.twin !== 'function')
    throw new TwinError(
      'INVALID_ARGUMENT',
      `deferredDispatchWork(engine): engine must be a TriggerEngine, got ${describeValue(engine)}`,
      { path: 'engine' },
    );
  const { world, twin } = engine;
  const now = (): string => isoAt(world.clock.now());

  const atomicStep = async (id: string): Promise<StepResult> => {
    // One instant per step: a decide may run again (a read-set restart) and must decide the same.
    const at = now();
    const outcome = await twin.applyAtomic((view) => {
      const d = readDispatch(view, id);
      return decideStep(view, at, id, {
        claimant: engine.claimant,
        recorder: engine.runner.recorder,
        canRun: d !== undefined && engine.hasRoute(d.triggerId),
      });
    });
    return outcome.result;
  };

  const settle = async (id: string): Promise<StepResult> => {
    const at = now();
    return (await twin.applyAtomic((view) => decideSettle(view, at, id, engine.claimant.leaseMs)))
      .result;
  };

  const step = async (id: string): Promise<StepResult> => {
    // An id that is no text was refused from deep in the store, as get(type, id)'s.
    if (typeof id !== 'string' || id === '')
      throw new TwinError(
        'INVALID_ARGUMENT',
        `work.step(id): id must be a dispatch id (dsp_…), got ${describeValue(id)}`,
        { path: 'id' },
      );
    const result = await atomicStep(id);
    if (result.kind !== 'lapsed') return result;
    // The host running it died: take its run over here (whoever else tries, one claim wins), so
    // a dispatch never waits on a worker that also runs the trigger-run kind. Then settle.
    const d = await twin.read((view) => readDispatch(view, id));
    if (engine.running && d !== undefined && engine.hasRoute(d.triggerId))
      await runInWorld(world, () => engine.takeOver(result.recordId));
    const settled = await settle(id);
    // Still lapsed: not ours to run (no route here); left for a worker that can.
    return settled.kind === 'lapsed' ? { kind: 'idle' } : settled;
  };

  const execute = (claimed: ClaimedDispatch): Promise<WorkReport> => {
    // No claim was a TypeError reading its run.
    if (
      claimed === null ||
      typeof claimed !== 'object' ||
      typeof claimed.id !== 'string' ||
      claimed.run === null ||
      typeof claimed.run !== 'object'
    )
      return Promise.reject(
        new TwinError(
          'INVALID_ARGUMENT',
          `work.execute(claimed): claimed must be {id, run, scheduledAt} from a step that answered "claimed", got ${describeValue(claimed)}`,
          { path: 'claimed' },
        ),
      );
    // The routine runs in the world its dispatch belongs to, whichever world is active here.
    return runInWorld(world, async () => {
      let status: string;
      try {
        status = (await engine.runDispatched(claimed.run, claimed.scheduledAt)).status;
      } catch (error) {
        if (
          !(error instanceof TwinError) ||
          !['ROUTINE_FAILED', 'STALE_OWNER'].includes(error.code)
        )
          throw error;
        status = error.code === 'ROUTINE_FAILED' ? 'failed' : 'superseded';
      }
      const settled = await settle(claimed.id);
      return {
        kind: DISPATCH_WORK,
        id: claimed.id,
        outcome: 'dispatched',
        detail: `${claimed.run.recordId} attempt ${claimed.run.attempt}: ${status}${settled.kind === 'settled' ? '' : ` (${settled.kind})`}`,
      };
    });
  };

  return {
    ...dueIndexWork({
      name: DISPATCH_WORK,
      twin,
      sources: [{ kind: dispatchKind }],
      run: (item: DueItem) =>
        runInWorld(world, async (): Promise<WorkReport | undefined> => {
          const result = await step(item.id);
          if (result.kind === 'idle') return undefined;
          if (result.kind === 'claimed')
            return execute({ id: item.id, run: result.run, scheduledAt: result.scheduledAt });
          return {
            kind: DISPATCH_WORK,
            id: item.id,
            outcome: result.kind,
            ...(result.kind === 'settled' ? { detail: result.runStatus } : {}),
          };
        }),
    }),
    step,
    execute,
  };
}
