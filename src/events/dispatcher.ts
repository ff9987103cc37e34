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
  decideClaim,
  decideFinish,
  readDelivery,
  STATE_INDEX,
  type Claim,
  type ClaimKind,
  type DeliveryFields,
  type DeliveryState,
  type Finish,
} from './records.js';
import { nextAttemptAt, type AttemptOutcome } from './retry.js';
import { getScheme } from './signing/index.js';
import { isPromise } from '../storage/secret-store.js';
import { continueTrace } from './trace.js';
import { HttpTransport } from './transports/http-transport.js';
import {
  TransportFailure,
  type Transport,
  type TransportResponse,
} from './transports/transport.js';
import { GroupCommit } from '../world/group-commit.js';
import { normalizeDecision, type Decision } from '../world/decision.js';
import type { ReadView } from '../state/read-view.js';

export interface TransportRoute {
  /** URLs starting with this prefix go through `transport`. */
  readonly prefix: string;
  readonly transport: Transport;
}

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
}

export interface RecoveryReport {
  readonly markedUnknown: string[];
  readonly dispatched: AttemptResult[];
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

export class Dispatcher {
  private readonly routes: readonly TransportRoute[];
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
    this.routes = options.routes ?? [];
    this.ownsDefault = options.defaultTransport === undefined;
    this.defaultTransport = options.defaultTransport ?? new HttpTransport();
    this.concurrency = options.concurrency ?? 32;
    this.autoDispatch = options.autoDispatch ?? true;
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
          decideClaim(view, decl.recordType, deliveryId, kind, isoAt(now), now, (d) =>
            endpointTakes(view, decl, d),
          ),
        );
        const record =
          result === undefined ? undefined : readDelivery(view, decl.recordType, deliveryId);
        return {
          kind: 'commit' as const,
          writes,
          result:
            result === undefined || record === undefined ? undefined : { claim: result, record },
        };
      });
      if (claimed === undefined) return undefined;
      return await this.sendAndFinish(pack, twin, decl, deliveryId, claimed.claim, claimed.record);
    } finally {
      this.release();
    }
  }

  /** An operator's explicit new attempt: allowed in any state but while an attempt is in flight. */
  async redeliver(deliveryId: string): Promise<AttemptResult> {
    const { pack, delivery } = await this.find(deliveryId);
    const result = await this.dispatch(pack.name, deliveryId, 'redeliver');
    if (result === undefined) {
      const recordType = pack.events!.recordType;
      const now = await this.world
        .twin(packTwinName(pack))
        .read((view) => readDelivery(view, recordType, deliveryId));
      if (now?.state === 'refused') {
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
   * After a crash or restart: records still queued are dispatched (they were never attempted);
   * records found `sending` whose attempt started at least `staleAfterMs` ago become `unknown` —
   * never resent blindly; records waiting for a retry are scheduled again.
   */
  async recover(options: { staleAfterMs?: number } = {}): Promise<RecoveryReport> {
    const staleAfterMs = options.staleAfterMs ?? 0;
    const markedUnknown: string[] = [];
    const queued: Promise<AttemptResult | undefined>[] = [];
    let scheduledRetries = 0;
    for (const pack of registeredPacks(this.world).values()) {
      const decl = pack.events;
      if (decl === undefined) continue;
      const twin = this.world.twin(packTwinName(pack));
      for (const record of await twin.lookup(decl.recordType, STATE_INDEX, 'sending')) {
        const d = record.fields as unknown as DeliveryFields;
        const claim: Claim = {
          attemptId: d.currentAttempt ?? attemptId(record.id, d.attempts),
          number: d.attempts,
          kind: 'first',
        };
        const started = (await twin.get(attemptType(decl.recordType), claim.attemptId))?.fields
          .startedAt;
        const now = this.world.clock.now();
        if (typeof started === 'string' && Date.parse(started) + staleAfterMs > now) continue;
        const finish: Finish = {
          outcome: 'unknown',
          status: null,
          reason: 'recovered_after_crash',
          headers: null,
        };
        const state = (
          await twin.applyAtomic((view) =>
            decideFinish(view, decl.recordType, record.id, claim, finish, isoAt(now)),
          )
        ).result;
        if (state !== undefined) markedUnknown.push(record.id);
      }
      for (const record of await twin.lookup(decl.recordType, STATE_INDEX, 'queued')) {
        queued.push(this.track(this.dispatch(pack.name, record.id, 'first')));
      }
      for (const record of await twin.lookup(decl.recordType, STATE_INDEX, 'retrying')) {
        const at = (record.fields as unknown as DeliveryFields).nextAttemptAt;
        this.scheduleRetry(
          pack.name,
          record.id,
          at === null ? this.world.clock.now() : Date.parse(at),
        );
        scheduledRetries++;
      }
    }
    const dispatched = (await Promise.all(queued)).filter(
      (r): r is AttemptResult => r !== undefined,
    );
    return { markedUnknown, dispatched, scheduledRetries };
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
    return group.submit((view) => {
      const { writes, result } = normalizeDecision(decide(view));
      return { writes, result };
    });
  }

  private transportFor(url: string): Transport {
    for (const route of this.routes) if (url.startsWith(route.prefix)) return route.transport;
    return this.defaultTransport;
  }

  private async sendAndFinish(
    pack: Pack,
    twin: Twin,
    decl: EventsDeclaration,
    deliveryId: string,
    claim: Claim,
    record: DeliveryFields,
  ): Promise<AttemptResult> {
    const transport = this.transportFor(record.url);
    const sentAt = transport.now();
    const timestampSec = Math.floor(sentAt / 1000);
    let secrets: readonly string[];
    let secretError = false;
    try {
      // A vault resolver may answer with a promise; the built-in stores answer at once (no tick).
      const found = this.world.secrets.resolve(record.secretRef, sentAt);
      secrets = isPromise(found) ? await found : found;
    } catch (error) {
      secrets = [];
      secretError = true;
      this.world.reportError(error, `resolving the secret of delivery ${deliveryId}`);
    }
    let response: TransportResponse | undefined;
    let outcome: AttemptOutcome;
    let reason: string;
    let headers: Record<string, string> | null = null;
    let durationMs = 0;
    if (secrets.length === 0) {
      // Never send an unsigned packet: the attempt fails before any request is made.
      outcome = 'failed';
      reason = secretError ? 'secret_error' : 'missing_secret';
      if (!secretError)
        this.world.reportError(
          new TwinError(
            'INVALID_CONFIG',
            `delivery ${deliveryId}: no secret is stored for reference "${record.secretRef}"; set it with world.secrets.set(ref, secret)`,
          ),
          'dispatch',
        );
    } else {
      const previous =
        claim.number > 1
          ? (await twin.get(attemptType(decl.recordType), attemptId(deliveryId, claim.number - 1)))
              ?.fields
          : undefined;
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
        headers = {
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
      } catch (error) {
        headers = null;
        this.world.reportError(error, `signing delivery ${deliveryId}`);
      }
      if (headers === null) {
        outcome = 'failed';
        reason = 'signing_error';
      } else {
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
        try {
          response = await transport.send({
            url: record.url,
            headers,
            body: record.body,
            timeoutMs: decl.timeoutMs ?? DEFAULT_TIMEOUT_MS,
          });
          outcome = response.status >= 200 && response.status < 300 ? 'succeeded' : 'failed';
          reason = 'http_status';
        } catch (error) {
          outcome = 'unknown';
          reason = error instanceof TransportFailure ? error.kind : 'connection_error';
        }
        durationMs = performance.now() - started;
        trace.end(outcome === 'succeeded');
      }
    }
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
      decideFinish(view, decl.recordType, deliveryId, claim, finish, isoAt(now)),
    );
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
      state,
      ...(retryAt === undefined ? {} : { retryAt: isoAt(retryAt) }),
      durationMs,
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
