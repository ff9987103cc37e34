// The trigger engine: routes envelopes to routines with durable dedupe. Every decision —
// received, filtered, started, finished, failed, duplicate, in progress, conflict, refused —
// is a write in the world's trigger twin; records are found by key (a hash of tenant and
// dedupeKey) or by a declared index, never by scanning. The class is a façade: configuration and
// lifecycle live here, the operations beside it (ingest.ts, run-claimed.ts, recover.ts) behind the
// narrow EngineCore, and the checks of what callers pass in engine-arguments.ts.
import { checkOptionKeys, TwinError } from '../../errors.js';
import { isoAt } from '../../world/clock.js';
import { commit, skip } from '../../world/decision.js';
import { checkLeaseMs, DEFAULT_LEASE_MS, DUE_FIELD, DUE_INDEX } from '../../work/lease.js';
import type { Twin } from '../../world/twin.js';
import type { World } from '../../world/world.js';
import type { IngestAnswer, TriggeredAnswer } from '../answer.js';
import { checkEnvelope, checkTenantId, type TriggerEnvelope } from '../envelope.js';
import { GroupCommit } from '../../world/group-commit.js';
import {
  type RunClaimant,
  readRecord,
  RECEIPT_TYPE,
  RECORD_TYPE,
  recordId,
  RECOVERY_INDEX,
  TENANT_INDEX,
  type RecordFields,
} from '../trigger-records.js';
import { type Refusal } from '../receipts.js';
import type { RoutineRunner, RunStartInfo } from '../runner.js';
import { pruneTriggerHistory, type PruneOptions, type PruneReport } from '../retention.js';
import {
  DEFAULT_REFUSAL_WINDOW_MS,
  RefusalCounter,
  REFUSALS_TYPE,
  refusalWindowWrites,
  type RefusalDelta,
} from '../refusal-windows.js';
import { RepeatCounter, repeatWrites, type Repeat, type RepeatDelta } from '../repeat-windows.js';
import type { TriggerSource } from '../source.js';
import { checkDispatchOptions, type CheckedDispatch } from '../deferred/dispatch-options.js';
import { DEFAULT_TRIGGER_TWIN } from '../defaults.js';
import { declareDispatchIndexes } from '../deferred/dispatch-record.js';
import {
  authorize,
  contextArgument,
  isTriggerContext,
  type TriggerContext,
} from '../tenant-context.js';

import {
  checkDispatchedRun,
  checkIngestOptions,
  checkKey,
  checkRefusal,
  checkRoute,
} from './engine-arguments.js';
import type { EngineCore } from './engine-core.js';
import {
  checkOptions,
  ENGINE_OPTION_KEYS,
  type IngestOptions,
  type RecoveredRun,
  type RecoveryOptions,
  type StopOptions,
  type TriggerEngineOptions,
  type TriggerRecoveryReport,
  type TriggerRoute,
} from './engine-options.js';
import { checkGuard, ingestEnvelope } from './ingest.js';
import { recoverOne, recoverTenant } from './recover.js';
import { runClaimed } from './run-claimed.js';

export type {
  IngestOptions,
  RecoveredRun,
  RecoveryOptions,
  StopOptions,
  TriggerEngineOptions,
  TriggerRecoveryReport,
  TriggerRoute,
} from './engine-options.js';

export const DEFAULT_STOP_GRACE_MS = 30_000;

type EngineState = 'new' | 'running' | 'stopping' | 'stopped';

export class TriggerEngine {
  readonly world: World;
  readonly twin: Twin;
  readonly runner: RoutineRunner;
  private readonly routes = new Map<string, TriggerRoute>();
  private readonly dispatchOptions = new Map<string, CheckedDispatch>();
  private readonly sources = new Map<string, TriggerSource>();
  private readonly commits: GroupCommit;
  /** This engine's identity on the runs it claims. */
  readonly claimant: RunClaimant;
  private readonly inflight = new Set<Promise<unknown>>();
  private readonly refusals: RefusalCounter;
  private readonly repeats: RepeatCounter;
  private state: EngineState = 'new';
  private stopping: Promise<void> | undefined;
  /** What the operations in ingest.ts, run-claimed.ts and recover.ts see of this engine. */
  private readonly core: EngineCore;

  constructor(options: TriggerEngineOptions) {
    if (options === null || typeof options !== 'object') {
      throw new TwinError(
        'INVALID_ARGUMENT',
        'new TriggerEngine({world, runner, twin?}) needs an options object',
        { path: 'options' },
      );
    }
    checkOptionKeys('new TriggerEngine(options)', options, ENGINE_OPTION_KEYS);
    const { world, runner } = options;
    if (
      world === null ||
      typeof world !== 'object' ||
      typeof (world as World).twin !== 'function'
    ) {
      throw new TwinError(
        'INVALID_ARGUMENT',
        'TriggerEngine needs {world}: the world from openWorld()',
        { path: 'world' },
      );
    }
    if (runner === null || typeof runner !== 'object' || typeof runner.run !== 'function') {
      throw new TwinError(
        'INVALID_ARGUMENT',
        'TriggerEngine needs {runner}: an object with run({routineId, runKey, input, envelope}), e.g. new InProcessRunner(world)',
        { path: 'runner' },
      );
    }
    const windowMs = options.refusalWindowMs ?? DEFAULT_REFUSAL_WINDOW_MS;
    if (!Number.isSafeInteger(windowMs) || windowMs < 1) {
      throw new TwinError(
        'INVALID_ARGUMENT',
        'refusalWindowMs must be a positive integer number of milliseconds',
        { path: 'refusalWindowMs' },
      );
    }
    this.refusals = new RefusalCounter(windowMs);
    this.repeats = new RepeatCounter(windowMs);
    this.world = world;
    this.runner = runner;
    this.twin = world.twin(options.twin ?? DEFAULT_TRIGGER_TWIN);
    this.twin.declareIndex({ type: RECORD_TYPE, name: RECOVERY_INDEX, field: 'recovery' });
    this.twin.declareIndex({ type: RECORD_TYPE, name: TENANT_INDEX, field: 'envelope.tenantId' });
    this.twin.declareIndex({ type: RECEIPT_TYPE, name: TENANT_INDEX, field: 'tenantId' });
    this.twin.declareIndex({ type: REFUSALS_TYPE, name: TENANT_INDEX, field: 'tenantId' });
    this.twin.declareIndex({ type: RECORD_TYPE, name: DUE_INDEX, field: DUE_FIELD });
    declareDispatchIndexes(this.twin);
    this.claimant = {
      owner: options.owner ?? `wrk_${world.ids.ksuid()}`,
      leaseMs: checkLeaseMs(options.leaseMs ?? DEFAULT_LEASE_MS, 'leaseMs'),
    };
    this.commits = new GroupCommit(this.twin, () => isoAt(this.world.clock.now()));
    this.core = {
      world,
      twin: this.twin,
      runner,
      claimant: this.claimant,
      commits: this.commits,
      stopped: () => this.state === 'stopped',
      routeFor: (triggerId) => this.routes.get(triggerId),
      dispatchFor: (triggerId) => this.dispatchOptions.get(triggerId),
      countRepeat: (repeat) => this.countRepeat(repeat),
    };
    // The store is about to close: nothing in flight could record its finish anyway.
    world.onClose(() => this.stop({ graceMs: 0 }));
  }

  // ---- configuration -------------------------------------------------------------------------

  registerRoute(route: TriggerRoute): this {
    const dispatch = checkRoute(route);
    if (this.routes.has(route.triggerId)) {
      throw new TwinError(
        'INVALID_ARGUMENT',
        `trigger "${route.triggerId}" already has a route (to routine "${this.routes.get(route.triggerId)!.routineId}")`,
        { path: 'route.triggerId' },
      );
    }
    this.routes.set(route.triggerId, route);
    if (dispatch !== undefined) this.dispatchOptions.set(route.triggerId, dispatch);
    return this;
  }

  hasRoute(triggerId: string): boolean {
    checkKey('engine.hasRoute(triggerId)', 'triggerId', triggerId);
    return this.routes.has(triggerId);
  }

  routeFor(triggerId: string): TriggerRoute | undefined {
    checkKey('engine.routeFor(triggerId)', 'triggerId', triggerId);
    return this.routes.get(triggerId);
  }

  /** Sources are registered before start(), which connects them all. */
  registerSource(source: TriggerSource): this {
    if (
      source === null ||
      typeof source !== 'object' ||
      typeof source.name !== 'string' ||
      source.name === ''
    ) {
      throw new TwinError(
        'INVALID_ARGUMENT',
        'registerSource(source) needs an object with a non-empty name',
        { path: 'source' },
      );
    }
    if (this.state !== 'new')
      throw new TwinError(
        'INVALID_ARGUMENT',
        `source "${source.name}": register sources before engine.start()`,
        { path: 'source' },
      );
    if (this.sources.has(source.name))
      throw new TwinError(
        'INVALID_ARGUMENT',
        `a source named "${source.name}" is already registered`,
        { path: 'source.name' },
      );
    this.sources.set(source.name, source);
    return this;
  }

  /**
   * Connects the registered sources. Starts no timer: ticks and recovery are the host's to
   * schedule. A context may be passed, as the trigger guide does; starting acts for no one tenant.
   */
  async start(context?: TriggerContext): Promise<void> {
    contextArgument(context);
    if (this.state === 'running') return;
    if (this.state !== 'new')
      throw new TwinError(
        'ENGINE_STOPPED',
        'this engine was stopped; create a new TriggerEngine to start again',
      );
    this.state = 'running';
    for (const source of this.sources.values()) await source.connect?.(this);
  }

  /**
   * Refuses new work, waits up to `graceMs` (default 30 s, wall time) for what is in flight, then
   * disconnects the sources. Work still running after the grace period is abandoned exactly as a
   * crash would abandon it: its records stay `processing` for recoverIncomplete. Takes
   * `stop(options?)` or, as the trigger guide writes it, `stop(context, options?)`.
   */
  stop(contextOrOptions?: TriggerContext | StopOptions, maybeOptions?: StopOptions): Promise<void> {
    const options =
      (isTriggerContext(contextOrOptions) ? maybeOptions : (contextOrOptions ?? maybeOptions)) ??
      {};
    checkOptions(options, ['graceMs'], 'stop options');
    const graceMs = options.graceMs ?? DEFAULT_STOP_GRACE_MS;
    if (!Number.isSafeInteger(graceMs) || graceMs < 0)
      throw new TwinError(
        'INVALID_ARGUMENT',
        'graceMs must be a non-negative integer number of milliseconds',
        { path: 'graceMs' },
      );
    return (this.stopping ??= this.stopNow(graceMs));
  }

  private async stopNow(graceMs: number): Promise<void> {
    const wasRunning = this.state === 'running';
    this.state = 'stopping';
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, graceMs);
      timer.unref();
    });
    const drained = (async () => {
      while (this.inflight.size > 0) await Promise.allSettled([...this.inflight]);
    })();
    await Promise.race([drained, expired]);
    clearTimeout(timer);
    await this.writeRefusals(this.refusals.drain());
    await this.writeRepeats(this.repeats.drain()).catch((error: unknown) =>
      this.world.reportError(error, 'counting repeats of trigger records'),
    );
    if (wasRunning)
      for (const source of [...this.sources.values()].reverse()) await source.disconnect?.();
    this.state = 'stopped';
  }

  get running(): boolean {
    return this.state === 'running';
  }

  private assertRunning(what: string): void {
    if (this.state === 'running') return;
    const why =
      this.state === 'new'
        ? 'has not been started; call engine.start() first'
        : 'is stopping or stopped';
    throw new TwinError('ENGINE_STOPPED', `${what}: the trigger engine ${why}`);
  }

  private track<T>(work: Promise<T>): Promise<T> {
    this.inflight.add(work);
    const done = (): void => void this.inflight.delete(work);
    work.then(done, done);
    return work;
  }

  // ---- reads ---------------------------------------------------------------------------------

  /** The record of one key, found by its derived id; a tenant context needs `read` for that tenant. */
  record(
    tenantId: string,
    dedupeKey: string,
    context?: TriggerContext,
  ): Promise<RecordFields | undefined> {
    // A tenant or key that is no text answered "no record", as if the key were merely unknown.
    checkTenantId(tenantId, 'tenantId', 'INVALID_ARGUMENT');
    checkKey('engine.record(tenantId, dedupeKey)', 'dedupeKey', dedupeKey);
    authorize(contextArgument(context), tenantId, 'read', 'read the records');
    return this.twin.read((view) => readRecord(view, recordId(tenantId, dedupeKey)));
  }

  // ---- ingest --------------------------------------------------------------------------------

  /**
   * Dedupes, routes and runs one envelope. Answers triggered / filtered / duplicate / in_progress;
   * throws PAYLOAD_CONFLICT, UNKNOWN_TRIGGER (both recorded), ROUTINE_FAILED (the record is
   * `failed`: a retry of the same delivery or recoverIncomplete runs it again), INVALID_ENVELOPE,
   * and TENANT_FORBIDDEN (not recorded) when `context` may not ingest for the envelope's tenant.
   * Without a context the call acts as host code for every tenant (SYSTEM_CONTEXT).
   */
  ingest(
    envelope: TriggerEnvelope,
    context?: TriggerContext,
    options: IngestOptions = {},
  ): Promise<IngestAnswer> {
    // Refusals of the call itself reject too, so `.catch` sees every error.
    try {
      this.assertRunning('ingest');
      const env = checkEnvelope(envelope);
      authorize(contextArgument(context), env.tenantId, 'ingest', 'ingest events');
      checkIngestOptions(options);
      const guard = checkGuard(options?.replayGuard);
      const dispatch =
        options?.dispatch === undefined
          ? undefined
          : checkDispatchOptions(options.dispatch, 'options.dispatch', 'INVALID_ARGUMENT');
      return this.track(ingestEnvelope(this.core, env, guard, dispatch));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * Runs an attempt a deferred dispatch claimed (deferred/dispatch-step.ts), exactly as ingest
   * runs its own: heartbeats, the finish, STALE_OWNER, ROUTINE_FAILED.
   */
  runDispatched(run: RunStartInfo, scheduledAt: string): Promise<TriggeredAnswer> {
    try {
      this.assertRunning('runDispatched');
      checkDispatchedRun(run, scheduledAt);
      const route = this.routes.get(run.envelope.triggerId);
      if (route === undefined)
        throw new TwinError(
          'UNKNOWN_TRIGGER',
          `no route for trigger "${run.envelope.triggerId}" in this process; register it before starting a worker`,
          { path: 'triggerId' },
        );
      return this.track(runClaimed(this.core, route, run, scheduledAt));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * Counts a refused envelope or packet (for sources: bad signature, invalid body…), never its
   * body: per source and window, not one entry each (see refusal-windows.ts).
   */
  recordRefusal(refusal: Refusal, context?: TriggerContext): Promise<void> {
    try {
      checkRefusal(refusal);
      authorize(contextArgument(context), refusal.tenantId, 'ingest', 'record refused packets');
    } catch (error) {
      return Promise.reject(error);
    }
    return this.writeRefusals(this.refusals.count(refusal, this.world.clock.now()));
  }

  /** A repeat of a known delivery, counted on its record per window (see repeat-windows.ts). */
  private async countRepeat(repeat: Repeat): Promise<void> {
    try {
      await this.writeRepeats(this.repeats.count(repeat, this.world.clock.now()));
    } catch (error) {
      // The answer stands whatever happens to a count: it was decided without it.
      this.world.reportError(error, `counting a repeat of trigger record ${repeat.recordId}`);
    }
  }

  private async writeRepeats(deltas: RepeatDelta[]): Promise<void> {
    if (deltas.length === 0) return;
    await this.commits.submit((view) => {
      const writes = repeatWrites(view, deltas);
      return writes.length === 0 ? skip() : commit(writes);
    });
  }

  private async writeRefusals(deltas: RefusalDelta[]): Promise<void> {
    if (deltas.length === 0) return;
    await this.commits.submit((view) => commit(refusalWindowWrites(view, deltas)));
  }

  // ---- retention -----------------------------------------------------------------------------

  /** Prunes this engine's settled history older than `olderThanMs` (see retention.ts). */
  pruneSettled(options: Omit<PruneOptions, 'twin'>): Promise<PruneReport> {
    return pruneTriggerHistory(this.world, { ...options, twin: this.twin.name });
  }

  // ---- recovery ------------------------------------------------------------------------------

  /**
   * Re-runs the tenant's `processing` and `failed` records from their stored envelopes, one at a
   * time, each claimed with an atomic action (so racing recoveries run each record once). Starts
   * no background worker: the host decides when — typically at startup after a crash. Takes
   * `(tenantId, options?)` or, as the trigger guide writes it, `(tenantId, context, options?)`;
   * a tenant context needs `recover` for that tenant (else TENANT_FORBIDDEN, nothing re-run).
   */
  recoverIncomplete(
    tenantId: string,
    contextOrOptions?: TriggerContext | RecoveryOptions,
    maybeOptions?: RecoveryOptions,
  ): Promise<TriggerRecoveryReport> {
    try {
      checkTenantId(tenantId, 'tenantId', 'INVALID_ARGUMENT');
      const withContext = isTriggerContext(contextOrOptions);
      const options =
        (withContext
          ? maybeOptions
          : ((contextOrOptions as RecoveryOptions | undefined) ?? maybeOptions)) ?? {};
      authorize(
        withContext ? contextOrOptions : contextArgument(undefined),
        tenantId,
        'recover',
        'recover the records',
      );
      checkOptions(options, ['staleAfterMs'], 'recoverIncomplete options');
      const staleAfterMs = options.staleAfterMs ?? 0;
      if (
        typeof staleAfterMs !== 'number' ||
        !Number.isSafeInteger(staleAfterMs) ||
        staleAfterMs < 0
      ) {
        throw new TwinError(
          'INVALID_ARGUMENT',
          'staleAfterMs must be a non-negative integer number of milliseconds',
          { path: 'staleAfterMs' },
        );
      }
      this.assertRunning('recoverIncomplete');
      return this.track(recoverTenant(this.core, tenantId, staleAfterMs));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * The worker's side of recovery: re-runs one `processing` record whose owner's lease lapsed
   * (its process died or hung). Undefined when there is nothing to take over.
   */
  async takeOver(recordId: string): Promise<RecoveredRun | undefined> {
    this.assertRunning('takeOver');
    checkKey('engine.takeOver(recordId)', 'recordId', recordId);
    const seen = await this.twin.read((view) => readRecord(view, recordId));
    if (seen === undefined || seen.state !== 'processing') return undefined;
    const outcome = await this.track(recoverOne(this.core, recordId, seen, 'processing', 0));
    return 'reason' in outcome ? undefined : outcome;
  }
}
