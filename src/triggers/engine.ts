// The trigger engine: routes envelopes to routines with durable dedupe. Every decision —
// received, filtered, started, finished, failed, duplicate, in progress, conflict, refused —
// is a write in the world's trigger twin; records are found by key (a hash of tenant and
// dedupeKey) or by a declared index, never by scanning.
import { TwinError } from '../errors.js';
import { canonicalJson } from '../log/canonical-json.js';
import { assertJson, MAX_JSON_DEPTH, type JsonValue } from '../log/json-value.js';
import { isoAt } from '../world/clock.js';
import { commit, skip } from '../world/decision.js';
import { keepAlive } from '../work/heartbeat.js';
import { checkLeaseMs, DEFAULT_LEASE_MS, DUE_FIELD, DUE_INDEX } from '../work/lease.js';
import type { Twin } from '../world/twin.js';
import type { World } from '../world/world.js';
import type { IngestAnswer, TriggeredAnswer } from './answer.js';
import { checkEnvelope, checkTenantId, checkTriggerId, type TriggerEnvelope } from './envelope.js';
import { GroupCommit } from '../world/group-commit.js';
import {
  decideFinish,
  decideReceive,
  decideRecover,
  decideRunHeartbeat,
  envelopeIdentity,
  runClaimFree,
  type RunClaimant,
  readRecord,
  RECEIPT_TYPE,
  RECORD_TYPE,
  recordId,
  RECOVERY_INDEX,
  recoveryKey,
  TENANT_INDEX,
  triggerRecordOf,
  type RecordFields,
  type Refusal,
  type ReplayGuard,
  refusalWrite,
} from './trigger-records.js';
import type { RoutineRunner, RunOutcome, RunStartInfo } from './runner.js';
import { pruneTriggerHistory, type PruneOptions, type PruneReport } from './retention.js';
import {
  DEFAULT_REFUSAL_WINDOW_MS,
  RefusalCounter,
  REFUSALS_TYPE,
  refusalWindowWrites,
  type RefusalDelta,
} from './refusal-windows.js';
import { RepeatCounter, repeatWrites, type Repeat, type RepeatDelta } from './repeat-windows.js';
import type { TriggerSource } from './source.js';
import {
  checkDispatchOptions,
  mergeDispatch,
  type CheckedDispatch,
  type DispatchOptions,
} from './deferred/dispatch-options.js';
import { DEFAULT_TRIGGER_TWIN, MAX_RESULT_BYTES } from './defaults.js';
import { planDispatch } from './deferred/dispatch-plan.js';
import { declareDispatchIndexes } from './deferred/dispatch-record.js';
import { decideDeferredReceive } from './deferred/receive-deferred.js';
import {
  authorize,
  contextArgument,
  isTriggerContext,
  type TriggerContext,
} from './tenant-context.js';

export const DEFAULT_STOP_GRACE_MS = 30_000;

export interface TriggerRoute {
  readonly triggerId: string;
  readonly routineId: string;
  /** Host code, run before the claim: false records the envelope as `filtered`. */
  readonly filter?: (envelope: TriggerEnvelope) => boolean;
  /** Builds the routine's input after the claim (so a failure here is a failed, recoverable run). */
  readonly buildInput: (envelope: TriggerEnvelope) => JsonValue | Promise<JsonValue>;
  /** Run later, not at once: delay, debounce, concurrency, ttl (see deferred/dispatch-options.ts). */
  readonly dispatch?: DispatchOptions;
}

export interface TriggerEngineOptions {
  readonly world: World;
  /** The twin every decision is written to; default "triggers". */
  readonly twin?: string;
  readonly runner: RoutineRunner;
  /** Refusals (per source) and repeats of a known delivery (per record) are counted in windows this long of world time (default 60 s). */
  readonly refusalWindowMs?: number;
  /** The owner written on each run's claim; defaults to a fresh id from the world's id source. */
  readonly owner?: string;
  /** How long a run's claim lasts before its owner must heartbeat (default 30 s, world clock). */
  readonly leaseMs?: number;
}

export interface IngestOptions {
  /**
   * For sources whose delivery id is not signed: a key for what the signature does cover. A new
   * key whose signed content was already received under another key within `windowMs` is
   * answered `duplicate` (with `replayOf`) and never run.
   */
  readonly replayGuard?: ReplayGuard;
  /** Dispatch options for this envelope; each one given replaces the route's option of that name. */
  readonly dispatch?: DispatchOptions;
}

export interface StopOptions {
  /** How long to wait for work in flight, wall time (default 30 s). */
  readonly graceMs?: number;
}

export interface RecoveryOptions {
  /**
   * Re-run a `processing` record only if its run started at least this long ago (default 0). Its
   * owner's lease must also have lapsed: a run still heartbeating is never started twice.
   */
  readonly staleAfterMs?: number;
}

export interface RecoveredRun {
  readonly recordId: string;
  readonly dedupeKey: string;
  readonly triggerId: string;
  readonly attempt: number;
  /** What the record was found in. */
  readonly from: 'processing' | 'failed';
  readonly status: 'triggered' | 'failed';
  readonly routineResult: JsonValue;
  readonly error: string | null;
}

export interface TriggerRecoveryReport {
  readonly tenantId: string;
  readonly recovered: RecoveredRun[];
  /** Records left alone: claimed by someone else meanwhile, not stale yet, or without a route. */
  readonly skipped: {
    readonly recordId: string;
    readonly reason: 'claimed_elsewhere' | 'not_stale' | 'UNKNOWN_TRIGGER';
  }[];
}

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

  constructor(options: TriggerEngineOptions) {
    if (options === null || typeof options !== 'object') {
      throw new TwinError(
        'INVALID_ARGUMENT',
        'new TriggerEngine({world, runner, twin?}) needs an options object',
        { path: 'options' },
      );
    }
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
    // The store is about to close: nothing in flight could record its finish anyway.
    world.onClose(() => this.stop({ graceMs: 0 }));
  }

  // ---- configuration -------------------------------------------------------------------------

  registerRoute(route: TriggerRoute): this {
    if (route === null || typeof route !== 'object') {
      throw new TwinError(
        'INVALID_ARGUMENT',
        'registerRoute({triggerId, routineId, filter?, buildInput}) needs a route object',
        { path: 'route' },
      );
    }
    checkTriggerId(route.triggerId, 'route.triggerId', 'INVALID_ARGUMENT');
    if (typeof route.routineId !== 'string' || route.routineId.length === 0) {
      throw new TwinError(
        'INVALID_ARGUMENT',
        `route.routineId must name the routine to run for trigger "${route.triggerId}"`,
        { path: 'route.routineId' },
      );
    }
    if (route.filter !== undefined && typeof route.filter !== 'function') {
      throw new TwinError(
        'INVALID_ARGUMENT',
        'route.filter must be a function (envelope) => boolean, or omitted',
        { path: 'route.filter' },
      );
    }
    if (typeof route.buildInput !== 'function') {
      throw new TwinError(
        'INVALID_ARGUMENT',
        'route.buildInput must be a function (envelope) => input, e.g. (e) => e.payload',
        { path: 'route.buildInput' },
      );
    }
    if (this.routes.has(route.triggerId)) {
      throw new TwinError(
        'INVALID_ARGUMENT',
        `trigger "${route.triggerId}" already has a route (to routine "${this.routes.get(route.triggerId)!.routineId}")`,
        { path: 'route.triggerId' },
      );
    }
    const dispatch =
      route.dispatch === undefined
        ? undefined
        : checkDispatchOptions(route.dispatch, 'route.dispatch', 'INVALID_ARGUMENT');
    this.routes.set(route.triggerId, route);
    if (dispatch !== undefined) this.dispatchOptions.set(route.triggerId, dispatch);
    return this;
  }

  hasRoute(triggerId: string): boolean {
    return this.routes.has(triggerId);
  }

  routeFor(triggerId: string): TriggerRoute | undefined {
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
      const guard = checkGuard(options?.replayGuard);
      const dispatch =
        options?.dispatch === undefined
          ? undefined
          : checkDispatchOptions(options.dispatch, 'options.dispatch', 'INVALID_ARGUMENT');
      return this.track(this.ingestNow(env, guard, dispatch));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  private async ingestNow(
    env: TriggerEnvelope,
    guard: ReplayGuard | undefined,
    callDispatch: CheckedDispatch | undefined,
  ): Promise<IngestAnswer> {
    const route = this.routes.get(env.triggerId);
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
      await this.commits.submit((view, now) =>
        commit(refusalWrite(view, now, refusalOf(env, error))),
      );
      throw error;
    }
    const filtered = route.filter !== undefined && !route.filter(env);
    const recorder = this.runner.recorder;
    const dispatch = mergeDispatch(this.dispatchOptions.get(env.triggerId), callDispatch);
    // Keys come from host code (a key function), so they are read before the decision.
    const plan = dispatch === undefined || filtered ? undefined : planDispatch(dispatch, env);
    const choice = { routineId: route.routineId, filtered };
    const outcome = await this.commits.submit((view, now) =>
      plan === undefined
        ? decideReceive(view, now, env, choice, recorder, this.claimant, guard)
        : decideDeferredReceive(view, now, env, choice, plan, recorder, this.claimant, guard),
    );
    if (outcome.kind === 'answered') {
      if (outcome.repeat !== undefined) await this.countRepeat(outcome.repeat);
      return outcome.answer;
    }
    if (outcome.kind === 'conflict') throw outcome.error;
    return this.runClaimed(route, outcome.run, outcome.scheduledAt);
  }

  /**
   * Runs an attempt a deferred dispatch claimed (deferred/dispatch-step.ts), exactly as ingest
   * runs its own: heartbeats, the finish, STALE_OWNER, ROUTINE_FAILED.
   */
  runDispatched(run: RunStartInfo, scheduledAt: string): Promise<TriggeredAnswer> {
    try {
      this.assertRunning('runDispatched');
      const route = this.routes.get(run.envelope.triggerId);
      if (route === undefined)
        throw new TwinError(
          'UNKNOWN_TRIGGER',
          `no route for trigger "${run.envelope.triggerId}" in this process; register it before starting a worker`,
          { path: 'triggerId' },
        );
      return this.track(this.runClaimed(route, run, scheduledAt));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** Runs a claimed attempt outside any lock, then records its finish. */
  private async runClaimed(
    route: TriggerRoute,
    run: RunStartInfo,
    scheduledAt: string,
  ): Promise<TriggeredAnswer> {
    let outcome: RunOutcome;
    let cause: unknown;
    const { owner, leaseMs } = this.claimant;
    const stopBeats = keepAlive(
      this.world.clock,
      leaseMs,
      // A stopped engine's process is going away: its leases lapse and another worker takes over.
      async () =>
        this.state !== 'stopped' &&
        (await this.commits.submit((view, now) =>
          decideRunHeartbeat(view, now, run, this.claimant),
        )),
      (error) => this.world.reportError(error, `heartbeat of run ${run.recordId}`),
    );
    try {
      const input = await route.buildInput(run.envelope);
      assertJson(input, 'input', { maxDepth: MAX_JSON_DEPTH - 1 });
      const result = await this.runner.run({ ...run, input });
      outcome = { ok: true, result: checkResult(result) };
    } catch (error) {
      cause = error;
      outcome = { ok: false, error: errorCode(error) };
    } finally {
      stopBeats();
    }
    const recorder = this.runner.recorder;
    const finished = await this.commits.submit((view, now) =>
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

  /**
   * Counts a refused envelope or packet (for sources: bad signature, invalid body…), never its
   * body: per source and window, not one entry each (see refusal-windows.ts).
   */
  recordRefusal(refusal: Refusal, context?: TriggerContext): Promise<void> {
    try {
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
      return this.track(this.recoverNow(tenantId, staleAfterMs));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  private async recoverNow(tenantId: string, staleAfterMs: number): Promise<TriggerRecoveryReport> {
    const report: TriggerRecoveryReport = { tenantId, recovered: [], skipped: [] };
    for (const from of ['processing', 'failed'] as const) {
      for (const resource of await this.twin.lookup(
        RECORD_TYPE,
        RECOVERY_INDEX,
        recoveryKey(from, tenantId),
      )) {
        const outcome = await this.recoverOne(
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

  /**
   * The worker's side of recovery: re-runs one `processing` record whose owner's lease lapsed
   * (its process died or hung). Undefined when there is nothing to take over.
   */
  async takeOver(recordId: string): Promise<RecoveredRun | undefined> {
    this.assertRunning('takeOver');
    const seen = await this.twin.read((view) => readRecord(view, recordId));
    if (seen === undefined || seen.state !== 'processing') return undefined;
    const outcome = await this.track(this.recoverOne(recordId, seen, 'processing', 0));
    return 'reason' in outcome ? undefined : outcome;
  }

  private async recoverOne(
    id: string,
    seen: RecordFields,
    from: 'processing' | 'failed',
    staleAfterMs: number,
  ): Promise<RecoveredRun | TriggerRecoveryReport['skipped'][number]> {
    const route = this.routes.get(seen.envelope.triggerId);
    if (route === undefined) return { recordId: id, reason: 'UNKNOWN_TRIGGER' };
    const staleBefore = isoAt(this.world.clock.now() - staleAfterMs);
    const recorder = this.runner.recorder;
    const run = await this.commits.submit((view, now) =>
      decideRecover(
        view,
        now,
        id,
        { state: from, attempts: seen.attempts },
        route.routineId,
        staleBefore,
        recorder,
        this.claimant,
      ),
    );
    if (run === undefined) {
      const notStale =
        from === 'processing' && !runClaimFree(seen, this.world.clock.now(), staleBefore);
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
      const answer = await this.runClaimed(route, run, seen.envelope.scheduledAt);
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
}

/**
 * Options beside an optional context: an unknown key is refused, so a look-alike context (a
 * plain object, not made by tenantContext) is never silently read as options and run unscoped.
 */
function checkOptions(options: unknown, keys: readonly string[], what: string): void {
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw new TwinError('INVALID_ARGUMENT', `${what} must be an object with ${keys.join(', ')}`, {
      path: 'options',
    });
  }
  for (const key of Object.keys(options)) {
    if (!keys.includes(key)) {
      throw new TwinError(
        'INVALID_ARGUMENT',
        `${what} has an unknown key "${key}" (allowed: ${keys.join(', ')}); a context must be made by tenantContext({tenantId, may})`,
        { path: `options.${key}` },
      );
    }
  }
}

function checkGuard(guard: ReplayGuard | undefined): ReplayGuard | undefined {
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

export function refusalOf(env: TriggerEnvelope, error: TwinError): Refusal {
  return { ...envelopeIdentity(env), error };
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
