// The send-once dispatcher. Each delivery goes claim → send → finish: the claim and the finish
// are atomic actions, the send happens outside the lock, signed at send time on the transport's
// clock. One claim, one request; more attempts come only from a retry policy or an operator.
import { performance } from 'node:perf_hooks';
import { TwinError } from '../errors.js';
import { canonicalJson } from '../log/canonical-json.js';
import { isoAt } from '../world/clock.js';
import { getPack, packTwinName, registeredPacks, type Pack } from './pack-registry.js';
import type { Twin } from '../world/twin.js';
import type { World } from '../world/world.js';
import type { EventsDeclaration } from './declaration.js';
import {
  attemptId,
  attemptType,
  decideAttemptFinish,
  decideClaim,
  decideDeliveryHeartbeat,
  deliveryOf,
  readDelivery,
  sendingLapsed,
  STALE,
  type Claim,
  type ClaimKind,
  type DeliveryFields,
  type DeliveryState,
  type Finish,
} from './delivery-records.js';
import { nextAttemptAt, type AttemptOutcome } from './retry.js';
import { getScheme } from './signing/index.js';
import { isPromise } from '../storage/secret-store.js';
import { continueTrace } from './trace.js';
import { HttpTransport } from './transports/http-transport.js';
import { TransportRoutes, type TransportRoute } from './transports/routes.js';

export type { TransportRoute };
import {
  TransportFailure,
  type Transport,
  type TransportResponse,
} from './transports/transport.js';
import { GroupCommit } from '../world/group-commit.js';
import { commit, normalizeDecision, skip, type Decision } from '../world/decision.js';
import { keepAlive } from '../work/heartbeat.js';
import { checkLeaseMs, DEFAULT_LEASE_MS, DUE_INDEX, END_OF_TIME } from '../work/lease.js';
import type { Resource } from '../state/resource.js';
import type { ReadView } from '../state/read-view.js';

export interface DispatcherOptions {
  readonly routes?: readonly TransportRoute[];
  /** For every other URL; defaults to HTTP on wall time (receivers outside the world). */
  readonly defaultTransport?: Transport;
  /** Deliveries in flight at once. */
  readonly concurrency?: number;
  /**
   * When new records go out: `true` (default) right after their write's caller has its answer;
   * `'on-flush'` only when `flush()` is called, in commit order — what a walk uses, so the order of
   * sends does not depend on how long the store took to answer; `false` never by itself.
   */
  readonly autoDispatch?: boolean | 'on-flush';
  /** The owner written on every claim (docs/work.md); defaults to a fresh id from the world's ids. */
  readonly owner?: string;
  /** How long a claim lasts before its owner must heartbeat (default 30 s, world clock). */
  readonly leaseMs?: number;
}

/** A signed packet just before it is sent. Seeing it is not evidence of transport or acceptance. */
export interface SignedPacket {
  readonly twin: string;
  readonly pack: string;
  readonly deliveryId: string;
  readonly attempt: number;
  readonly eventType: string;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

export interface AttemptResult {
  readonly pack: string;
  readonly deliveryId: string;
  readonly attemptId: string;
  readonly number: number;
  readonly kind: ClaimKind;
  readonly outcome: AttemptOutcome;
  readonly status: number | null;
  readonly reason: string;
  /** The record's state after the finish. */
  readonly state: DeliveryState | undefined;
  readonly retryAt?: string;
  /** Wall-clock time of the request, reported beside the log, never in it. */
  readonly durationMs: number;
  /**
   * Set when this sender had lost its claim before finishing (its lease lapsed and the attempt
   * was taken over): the finish was refused (STALE_OWNER) and what it saw kept on the attempt.
   */
  readonly stale?: true;
}

export interface RecoveryReport {
  /** Attempts whose sender's lease had lapsed: finished `unknown`, never resent blindly. */
  readonly markedUnknown: string[];
  readonly dispatched: AttemptResult[];
  /** Retries that were due and ran. */
  readonly retried: AttemptResult[];
  /** Retries not due yet: left in the store for a worker, with their due time. */
  readonly scheduled: { readonly deliveryId: string; readonly at: string }[];
  /** Attempts in flight under a live lease: someone is sending them; left alone. */
  readonly inFlight: {
    readonly deliveryId: string;
    readonly owner: string | null;
    readonly leaseUntil: string | null;
  }[];
  /** `scheduled.length`, kept for callers of the first version. */
  readonly scheduledRetries: number;
}

const DEFAULT_TIMEOUT_MS = 10_000;

/** Whether the record's endpoint still exists and is enabled. */
function endpointTakes(view: ReadView, decl: EventsDeclaration, d: DeliveryFields): boolean {
  const endpoint = view.get(d.endpointKind, d.endpointId);
  if (endpoint === undefined || endpoint.deleted) return false;
  const kind = decl.endpoints.find((k) => k.type === d.endpointKind);
  if (kind?.enabledWhen === undefined) return true;
  return (
    canonicalJson(endpoint.fields[kind.enabledWhen.field] ?? null) ===
    canonicalJson(kind.enabledWhen.value)
  );
}
let instances = 0;

/** What one send came to, before it is recorded. */
interface Sent {
  readonly outcome: AttemptOutcome;
  readonly reason: string;
  readonly headers: Record<string, string> | null;
  readonly response?: TransportResponse;
  readonly durationMs: number;
}

function notSent(
  outcome: AttemptOutcome,
  reason: string,
  headers: Record<string, string> | null = null,
): Sent {
  return { outcome, reason, headers, durationMs: 0 };
}

/** 2xx accepted, other real statuses refused; a number outside 100–599 means nothing was understood. */
function classifyStatus(status: number): { outcome: AttemptOutcome; reason: string } {
  if (!Number.isInteger(status) || status < 100 || status > 599)
    return { outcome: 'unknown', reason: 'invalid_status' };
  return { outcome: status >= 200 && status < 300 ? 'succeeded' : 'failed', reason: 'http_status' };
}

export class Dispatcher {
  private readonly routes: TransportRoutes;
  private readonly defaultTransport: Transport;
  private readonly ownsDefault: boolean;
  private readonly concurrency: number;
  private readonly autoDispatch: boolean | 'on-flush';
  /** Records committed but not yet handed to dispatch, in commit order (`'on-flush'`). */
  private unflushed: { pack: string; id: string }[] = [];
  private readonly observers = new Set<(packet: SignedPacket) => void>();
  private readonly inflight = new Set<Promise<unknown>>();
  private readonly cancels = new Set<() => void>();
  private readonly attached = new Set<string>();
  private readonly groups = new Map<string, GroupCommit>();
  private active = 0;
  private readonly waiting: (() => void)[] = [];
  private closed = false;
  private readonly hookName = `dispatcher#${++instances}`;
  readonly owner: string;
  readonly leaseMs: number;

  constructor(
    readonly world: World,
    options: DispatcherOptions = {},
  ) {
    if (
      options.concurrency !== undefined &&
      (!Number.isInteger(options.concurrency) || options.concurrency < 1)
    ) {
      throw new TwinError('INVALID_ARGUMENT', 'dispatcher concurrency must be a positive integer', {
        path: 'concurrency',
      });
    }
    this.ownsDefault = options.defaultTransport === undefined;
    this.defaultTransport = options.defaultTransport ?? new HttpTransport();
    this.routes = new TransportRoutes(options.routes ?? [], this.defaultTransport);
    this.concurrency = options.concurrency ?? 32;
    this.autoDispatch = options.autoDispatch ?? true;
    this.owner = options.owner ?? `wrk_${world.ids.ksuid()}`;
    this.leaseMs = checkLeaseMs(options.leaseMs ?? DEFAULT_LEASE_MS, 'leaseMs');
    for (const pack of registeredPacks(world).values()) this.attach(pack);
    world.onClose(() => this.close());
  }

  /** Starts dispatching a pack's new records after each commit; packs registered before construction are attached already. */
  attach(pack: Pack): void {
    if (pack.events === undefined || this.attached.has(pack.name)) return;
    this.attached.add(pack.name);
    const recordCreate = `${pack.events.recordType}.create`;
    this.world.twin(packTwinName(pack)).use({
      name: this.hookName,
      afterCommit: (entries) => {
        if (this.autoDispatch === false || this.closed) return;
        for (const e of entries) {
          if (e.operation !== recordCreate) continue;
          if (this.autoDispatch === 'on-flush')
            this.unflushed.push({ pack: pack.name, id: e.subjectId });
          else
            void this.track(this.afterAnswer(() => this.dispatch(pack.name, e.subjectId, 'first')));
        }
      },
    });
  }

  /** Hands the records committed since the last flush to dispatch, in commit order. */
  flush(): void {
    const due = this.unflushed;
    this.unflushed = [];
    for (const r of due) void this.track(this.dispatch(r.pack, r.id, 'first'));
  }

  observe(fn: (packet: SignedPacket) => void): () => void {
    this.observers.add(fn);
    return () => this.observers.delete(fn);
  }

  /** Resolves once nothing is in flight (scheduled retries on a virtual clock wait for the clock). */
  async idle(): Promise<void> {
    while (this.inflight.size > 0) await Promise.allSettled([...this.inflight]);
  }

  /**
   * Runs one attempt of one delivery if it can be claimed; undefined when there was nothing to
   * claim, or when the record lacked part of its packet and was refused instead (state `refused`).
   */
  async dispatch(
    packName: string,
    deliveryId: string,
    kind: ClaimKind = 'first',
    options: { readonly to?: string } = {},
  ): Promise<AttemptResult | undefined> {
    const pack = getPack(this.world, packName);
    const decl = pack.events!;
    const twin = this.world.twin(packTwinName(pack));
    await this.acquire();
    try {
      const now = this.world.clock.now();
      // The packet (url, body, secret ref, trace) never changes after the record is created: the
      // claim hands it over, so a send costs no second read of the record.
      const claimed = await this.decide(twin, (view) => {
        const { writes, result } = normalizeDecision(
          decideClaim(view, decl.recordType, deliveryId, kind, isoAt(now), now, {
            endpointTakes: (d) => endpointTakes(view, decl, d),
            owner: this.owner,
            leaseMs: this.leaseMs,
            ...(options.to === undefined ? {} : { url: options.to }),
          }),
        );
        const record =
          result === undefined ? undefined : readDelivery(view, decl.recordType, deliveryId);
        return commit(
          writes,
          result === undefined || record === undefined ? undefined : { claim: result, record },
        );
      });
      if (claimed === undefined) return undefined;
      return await this.sendAndFinish(pack, twin, decl, deliveryId, claimed.claim, claimed.record);
    } finally {
      this.release();
    }
  }

  /**
   * An operator's explicit new attempt: allowed in any state but while an attempt is in flight.
   * `to` sends this one attempt to another URL (kept on the attempt); the record keeps its own.
   */
  async redeliver(
    deliveryId: string,
    options: { readonly to?: string } = {},
  ): Promise<AttemptResult> {
    const { pack, delivery } = await this.find(deliveryId);
    const result = await this.dispatch(pack.name, deliveryId, 'redeliver', options);
    if (result === undefined) {
      const recordType = pack.events!.recordType;
      const now = await this.world
        .twin(packTwinName(pack))
        .read((view) => readDelivery(view, recordType, deliveryId));
      if (now === undefined) {
        throw new TwinError(
          'UNKNOWN_DELIVERY',
          `delivery ${deliveryId} was removed before its redeliver could claim it; list deliveries with \`twinworld deliveries\``,
          { path: 'delivery' },
        );
      }
      if (now.state === 'refused') {
        throw new TwinError(
          'NOT_CLAIMABLE',
          `delivery ${deliveryId} was refused (${now.reason ?? 'incomplete_packet'}): the record does not hold a whole packet, so no attempt can be made; fix the endpoint and let the event fire again`,
          { path: 'delivery' },
        );
      }
      throw new TwinError(
        'NOT_CLAIMABLE',
        `delivery ${deliveryId} has an attempt in flight (state ${delivery.state}); wait for it, or run recover if its sender crashed`,
        { path: 'delivery' },
      );
    }
    return result;
  }

  /** Locates a delivery record across the registered packs. */
  async find(deliveryId: string): Promise<{ pack: Pack; twin: Twin; delivery: DeliveryFields }> {
    for (const pack of registeredPacks(this.world).values()) {
      if (pack.events === undefined) continue;
      const twin = this.world.twin(packTwinName(pack));
      const recordType = pack.events.recordType;
      const delivery = await twin.read((view) => readDelivery(view, recordType, deliveryId));
      if (delivery !== undefined) return { pack, twin, delivery };
    }
    throw new TwinError(
      'UNKNOWN_DELIVERY',
      `no delivery ${deliveryId} in packs ${[...registeredPacks(this.world).keys()].join(', ') || '(none registered)'}; list them with \`twinworld deliveries\``,
      { path: 'delivery' },
    );
  }

  /**
   * Runs what is due once, from any process, at any time, while others work: records still queued
   * are dispatched; retries whose time has come run; a `sending` record is taken over only when its
   * sender's lease lapsed (the attempt becomes `unknown` — never resent blindly); everything else is
   * reported: retries not due yet with their time, attempts in flight under a live lease.
   * `staleAfterMs` applies to records claimed before leases existed (default: one lease).
   */
  async recover(options: { staleAfterMs?: number } = {}): Promise<RecoveryReport> {
    const staleAfterMs = options.staleAfterMs ?? this.leaseMs;
    const report = {
      markedUnknown: [] as string[],
      dispatched: [] as AttemptResult[],
      retried: [] as AttemptResult[],
      scheduled: [] as { deliveryId: string; at: string }[],
      inFlight: [] as { deliveryId: string; owner: string | null; leaseUntil: string | null }[],
    };
    const runs: Promise<void>[] = [];
    for (const pack of registeredPacks(this.world).values()) {
      const decl = pack.events;
      if (decl === undefined) continue;
      const twin = this.world.twin(packTwinName(pack));
      // Every record someone must still act on is on the due index (terminal ones are not).
      const open = await twin.read((view) =>
        view.lookupUpTo(decl.recordType, DUE_INDEX, END_OF_TIME, Number.MAX_SAFE_INTEGER),
      );
      const inState = (state: DeliveryState): Resource[] =>
        open.filter((record) => deliveryOf(record).state === state);
      for (const record of inState('sending')) {
        const d = deliveryOf(record);
        if (await this.takeOver(pack, record.id, staleAfterMs))
          report.markedUnknown.push(record.id);
        else
          report.inFlight.push({
            deliveryId: record.id,
            owner: d.owner ?? null,
            leaseUntil: d.leaseUntil ?? null,
          });
      }
      for (const record of inState('queued')) {
        runs.push(
          this.track(this.dispatch(pack.name, record.id, 'first')).then((r) => {
            if (r !== undefined) report.dispatched.push(r);
          }),
        );
      }
      const now = this.world.clock.now();
      for (const record of inState('retrying')) {
        const at = deliveryOf(record).nextAttemptAt;
        if (at === null || Date.parse(at) <= now) {
          runs.push(
            this.track(this.dispatch(pack.name, record.id, 'retry')).then((r) => {
              if (r !== undefined) report.retried.push(r);
            }),
          );
        } else {
          report.scheduled.push({ deliveryId: record.id, at });
          this.scheduleRetry(pack.name, record.id, Date.parse(at));
        }
      }
    }
    await Promise.all(runs);
    return { ...report, scheduledRetries: report.scheduled.length };
  }

  /**
   * Takes over one `sending` record whose sender's lease lapsed: its attempt is finished
   * `unknown` (`lease_expired`). A record claimed before leases existed counts as lapsed once its
   * attempt started `staleAfterMs` ago. False when its claim is live (or it is not sending).
   */
  async takeOver(pack: Pack, deliveryId: string, staleAfterMs = this.leaseMs): Promise<boolean> {
    const decl = pack.events!;
    const twin = this.world.twin(packTwinName(pack));
    const now = this.world.clock.now();
    const state = await this.decide(twin, (view) => {
      const d = readDelivery(view, decl.recordType, deliveryId);
      // Every claim names its attempt; a sending record without one was written by hand, and no
      // attempt of it can be finished.
      if (d === undefined || d.state !== 'sending' || d.currentAttempt === null)
        return skip(undefined);
      const claim: Claim = { attemptId: d.currentAttempt, number: d.attempts, kind: 'first' };
      if (d.leaseUntil === undefined || d.leaseUntil === null) {
        const started = view.get(attemptType(decl.recordType), claim.attemptId)?.fields.startedAt;
        if (typeof started === 'string' && Date.parse(started) + staleAfterMs > now)
          return skip(undefined);
      } else if (!sendingLapsed(d, now)) return skip(undefined);
      const finish: Finish = {
        outcome: 'unknown',
        status: null,
        reason: d.leaseUntil == null ? 'recovered_after_crash' : 'lease_expired',
        headers: null,
      };
      return decideAttemptFinish(view, decl.recordType, deliveryId, claim, finish, isoAt(now));
    });
    return state !== undefined && state !== STALE;
  }

  /**
   * The worker's entry: acts on one record that fell due, whatever it needs — a first attempt, a
   * due retry, or a takeover of a lapsed claim. Undefined when there was nothing to do.
   */
  async runDue(
    packName: string,
    deliveryId: string,
    /**
     * The record's state as the caller just read it (the worker's due read): saves reading it
     * again. The claim checks the state itself, so a record taken meanwhile claims nothing.
     */
    known?: string,
  ): Promise<AttemptResult | 'taken_over' | undefined> {
    const pack = getPack(this.world, packName);
    const recordType = pack.events!.recordType;
    const d =
      known === 'queued' || known === 'retrying' || known === 'sending'
        ? { state: known }
        : await this.world
            .twin(packTwinName(pack))
            .read((view) => readDelivery(view, recordType, deliveryId));
    if (d === undefined) return undefined;
    if (d.state === 'queued') return this.dispatch(packName, deliveryId, 'first');
    if (d.state === 'retrying') return this.dispatch(packName, deliveryId, 'retry');
    if (d.state === 'sending')
      return (await this.takeOver(pack, deliveryId)) ? 'taken_over' : undefined;
    return undefined;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const cancel of this.cancels) cancel();
    this.cancels.clear();
    await this.idle();
    if (this.ownsDefault) this.defaultTransport.close?.();
  }

  // ---- internals -----------------------------------------------------------------------------

  /** Claims and finishes of one loop turn share one exclusive section (see GroupCommit). */
  private decide<T>(twin: Twin, decide: (view: ReadView) => Decision<T>): Promise<T> {
    let group = this.groups.get(twin.name);
    if (group === undefined)
      this.groups.set(
        twin.name,
        (group = new GroupCommit(twin, () => isoAt(this.world.clock.now()))),
      );
    return group.submit((view) => decide(view));
  }

  /** One claimed attempt, in named steps: secrets, headers and signature, observers, send, classify, finish. */
  private async sendAndFinish(
    pack: Pack,
    twin: Twin,
    decl: EventsDeclaration,
    deliveryId: string,
    claim: Claim,
    packetRecord: DeliveryFields,
  ): Promise<AttemptResult> {
    // A redeliver to another URL changes where this one attempt goes, nothing else of the packet.
    const record = claim.url === undefined ? packetRecord : { ...packetRecord, url: claim.url };
    const transport = this.routes.for(record.url);
    const sentAt = transport.now();
    const stopBeats = keepAlive(
      this.world.clock,
      this.leaseMs,
      async () =>
        !this.closed &&
        (await this.decide(twin, (view) =>
          decideDeliveryHeartbeat(
            view,
            decl.recordType,
            deliveryId,
            claim,
            this.world.clock.now(),
            this.leaseMs,
          ),
        )),
      (error) => this.world.reportError(error, `heartbeat of delivery ${deliveryId}`),
    );
    let sent: Sent;
    try {
      const secrets = await this.resolveSecrets(record, deliveryId, sentAt);
      if (secrets === 'missing_secret' || secrets === 'secret_error') {
        // Never send an unsigned packet: the attempt fails before any request is made.
        sent = notSent('failed', secrets);
      } else {
        const headers = await this.signedHeaders(
          twin,
          decl,
          deliveryId,
          claim,
          record,
          secrets,
          sentAt,
        );
        sent =
          headers === undefined
            ? notSent('failed', 'signing_error')
            : await this.send(transport, decl, pack, twin, deliveryId, claim, record, headers);
      }
    } finally {
      stopBeats();
    }
    return this.finish(pack, twin, decl, deliveryId, claim, sent);
  }

  /** The secrets to sign with, or why there are none (reported, never sent unsigned). */
  private async resolveSecrets(
    record: DeliveryFields,
    deliveryId: string,
    at: number,
  ): Promise<readonly string[] | 'missing_secret' | 'secret_error'> {
    try {
      // A vault resolver may answer with a promise; the built-in stores answer at once (no tick).
      const found = this.world.secrets.resolve(record.secretRef, at);
      const secrets = isPromise(found) ? await found : found;
      if (secrets.length > 0) return secrets;
      this.world.reportError(
        new TwinError(
          'INVALID_CONFIG',
          `delivery ${deliveryId}: no secret is stored for reference "${record.secretRef}"; set it with world.secrets.set(ref, secret)`,
        ),
        'dispatch',
      );
      return 'missing_secret';
    } catch (error) {
      this.world.reportError(error, `resolving the secret of delivery ${deliveryId}`);
      return 'secret_error';
    }
  }

  /** The pack's headers, the signature and the trace headers; undefined when signing threw. */
  private async signedHeaders(
    twin: Twin,
    decl: EventsDeclaration,
    deliveryId: string,
    claim: Claim,
    record: DeliveryFields,
    secrets: readonly string[],
    sentAt: number,
  ): Promise<
    { headers: Record<string, string>; trace: ReturnType<typeof continueTrace> } | undefined
  > {
    const timestampSec = Math.floor(sentAt / 1000);
    // A deleted attempt tells nothing, as everywhere else in the kernel (decideAttemptFinish).
    const before =
      claim.number > 1
        ? await twin.get(attemptType(decl.recordType), attemptId(deliveryId, claim.number - 1))
        : undefined;
    const previous = before === undefined || before.deleted ? undefined : before.fields;
    const trace = continueTrace(
      record.traceparent === null
        ? undefined
        : {
            traceparent: record.traceparent,
            ...(record.tracestate ? { tracestate: record.tracestate } : {}),
          },
      () => this.world.ids.bytes(8).toString('hex'),
    );
    try {
      const headers = {
        'content-type': 'application/json',
        ...(decl.headers?.({
          record: record as never,
          attempt: claim.number,
          previousOutcome:
            previous === undefined
              ? undefined
              : {
                  state: String(previous.state),
                  status: (previous.status as number | null) ?? null,
                  reason: String(previous.reason ?? 'unknown'),
                },
          timestampSec,
        }) ?? {}),
        ...getScheme(decl.signing).sign({
          body: record.body,
          secrets,
          timestampSec,
          messageId: record.messageId,
        }),
        ...trace.headers,
      };
      return { headers, trace };
    } catch (error) {
      this.world.reportError(error, `signing delivery ${deliveryId}`);
      return undefined;
    }
  }

  /** Shows the packet to observers, sends it and classifies what came back. */
  private async send(
    transport: Transport,
    decl: EventsDeclaration,
    pack: Pack,
    twin: Twin,
    deliveryId: string,
    claim: Claim,
    record: DeliveryFields,
    signed: { headers: Record<string, string>; trace: ReturnType<typeof continueTrace> },
  ): Promise<Sent> {
    const { headers, trace } = signed;
    const packet: SignedPacket = {
      twin: twin.name,
      pack: pack.name,
      deliveryId,
      attempt: claim.number,
      eventType: record.eventType,
      url: record.url,
      headers,
      body: record.body,
    };
    for (const observer of this.observers) {
      try {
        observer(packet);
      } catch (error) {
        this.world.reportError(error, 'delivery observer');
      }
    }
    const started = performance.now();
    let sent: Sent;
    try {
      const response = await transport.send({
        url: record.url,
        headers,
        body: record.body,
        timeoutMs: decl.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      });
      sent = { ...classifyStatus(response.status), response, headers, durationMs: 0 };
    } catch (error) {
      const kind = error instanceof TransportFailure ? error.kind : 'connection_error';
      // A request that provably never left is a plain failure; any other may have arrived.
      sent = notSent(kind === 'not_sent' ? 'failed' : 'unknown', kind, headers);
    }
    sent = { ...sent, durationMs: performance.now() - started };
    trace.end(sent.outcome === 'succeeded');
    return sent;
  }

  /** Records the outcome (with the retry the policy grants) and schedules that retry here too. */
  private async finish(
    pack: Pack,
    twin: Twin,
    decl: EventsDeclaration,
    deliveryId: string,
    claim: Claim,
    sent: Sent,
  ): Promise<AttemptResult> {
    const { outcome, reason, headers, response, durationMs } = sent;
    const status = response?.status ?? null;
    const now = this.world.clock.now();
    // An operator's redeliver is one explicit attempt: its failure is reported, not retried by policy.
    const retryAt =
      claim.kind === 'redeliver'
        ? undefined
        : nextAttemptAt(
            decl.retry,
            claim.number,
            outcome,
            status,
            now,
            () => this.world.ids.random(),
            response?.retryAfterSec,
          );
    const finish: Finish = {
      outcome,
      status,
      reason,
      headers,
      ...(retryAt === undefined ? {} : { retryAt }),
    };
    const state = await this.decide(twin, (view) =>
      decideAttemptFinish(view, decl.recordType, deliveryId, claim, finish, isoAt(now)),
    );
    if (state === STALE) {
      this.world.reportError(
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
      this.scheduleRetry(pack.name, deliveryId, retryAt);
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
      ...(retryAt === undefined ? {} : { retryAt: isoAt(retryAt) }),
      durationMs,
      ...(state === STALE ? { stale: true as const } : {}),
    };
  }

  private scheduleRetry(packName: string, deliveryId: string, at: number): void {
    if (this.closed) return;
    const cancel = this.world.clock.schedule(at, () => {
      this.cancels.delete(cancel);
      if (this.closed) return;
      return this.track(this.dispatch(packName, deliveryId, 'retry')).then(() => undefined);
    });
    this.cancels.add(cancel);
  }

  /** Defers work until the current call stack (the writer's) has its answer. */
  private afterAnswer<T>(fn: () => Promise<T>): Promise<T> {
    return new Promise<void>((resolve) => setImmediate(resolve)).then(fn);
  }

  private track<T>(promise: Promise<T>): Promise<T> {
    const tracked = promise.catch((error: unknown) => {
      this.world.reportError(error, 'dispatch');
      return undefined as T;
    });
    this.inflight.add(tracked);
    void tracked.finally(() => this.inflight.delete(tracked));
    return tracked;
  }

  private acquire(): Promise<void> {
    if (this.active < this.concurrency) {
      this.active++;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push(() => resolve()));
  }

  private release(): void {
    const next = this.waiting.shift();
    if (next !== undefined) next();
    else this.active--;
  }
}
