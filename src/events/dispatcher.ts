// The send-once dispatcher. Each delivery goes claim → send → finish: the claim and the finish
// are atomic actions, the send happens outside the lock, signed at send time on the transport's
// clock. One claim, one request; more attempts come only from a retry policy or an operator.
// This file is the façade: the claims are in dispatch/claim.ts, and one claimed attempt (one value,
// dispatch/attempt.ts) goes through dispatch/sign.ts → send.ts → finish.ts (dispatch/run-attempt.ts).
import { TwinError } from '../errors.js';
import { checkDispatcherArguments, checkRegisteredPack } from './dispatcher-options.js';
import { getPack, packTwinName, registeredPacks, type Pack } from './pack-registry.js';
import type { Twin } from '../world/twin.js';
import type { World } from '../world/world.js';
import { readDelivery, type ClaimKind, type DeliveryFields } from './delivery-records.js';
import { HttpTransport } from './transports/http-transport.js';
import { TransportRoutes, type TransportRoute } from './transports/routes.js';
import type { Transport } from './transports/transport.js';
import { GroupCommit } from '../world/group-commit.js';
import type { Decision } from '../world/decision.js';
import { isoAt } from '../world/clock.js';
import { checkLeaseMs, DEFAULT_LEASE_MS } from '../work/lease.js';
import type { SendSlot } from '../work/work-kind.js';
import type { ReadView } from '../state/read-view.js';
import type { Attempt, AttemptResult, SignedPacket } from './dispatch/attempt.js';
import { decideDueClaims, decideOneClaim, decideTakeOver, type Claimed } from './dispatch/claim.js';
import type { DispatchContext } from './dispatch/context.js';
import { recoverDue, type RecoveryReport } from './dispatch/recover.js';
import { handBack, runAttempt, type SlotWait } from './dispatch/run-attempt.js';

export type { AttemptResult, RecoveryReport, SignedPacket };

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

/** A record the worker's batch acted on, and what running it comes to. */
export interface TakenDelivery {
  readonly id: string;
  readonly dueAt: string;
  readonly state: string;
  /** The attempt's result; 'taken_over' for a lapsed claim finished unknown; undefined: no send. */
  readonly done: Promise<AttemptResult | 'taken_over' | undefined>;
  /** Settles when the attempt was sent (or failed to be) and only its finish is left to commit. */
  readonly freed?: Promise<void>;
}

/** Attempts a dispatcher runs at once unless told otherwise. */
export const DISPATCH_CONCURRENCY = 32;

let instances = 0;

export class Dispatcher implements DispatchContext {
  readonly routes: TransportRoutes;
  private readonly defaultTransport: Transport;
  private readonly ownsDefault: boolean;
  private readonly concurrency: number;
  private readonly autoDispatch: boolean | 'on-flush';
  /** Records committed but not yet handed to dispatch, in commit order (`'on-flush'`). */
  private unflushed: { pack: string; id: string }[] = [];
  readonly observers = new Set<(packet: SignedPacket) => void>();
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
    checkDispatcherArguments(world, options);
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
    this.concurrency = options.concurrency ?? DISPATCH_CONCURRENCY;
    this.autoDispatch = options.autoDispatch ?? true;
    this.owner = options.owner ?? `wrk_${world.ids.ksuid()}`;
    this.leaseMs = checkLeaseMs(options.leaseMs ?? DEFAULT_LEASE_MS, 'leaseMs');
    for (const pack of registeredPacks(world).values()) this.attach(pack);
    world.onClose(() => this.close());
  }

  /** Starts dispatching a pack's new records after each commit; packs registered before construction are attached already. */
  attach(pack: Pack): void {
    checkRegisteredPack(this.world, pack, 'dispatcher.attach(pack)');
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
      // The clock is read in the section (once: a section that runs again for its reads decides
      // the same), not before it: a rate slot booked against a reading taken before a slow lock
      // would already have passed when the claim commits.
      let now: number | undefined;
      const claimed = await this.decide(twin, (view) =>
        decideOneClaim(
          view,
          decl,
          deliveryId,
          kind,
          (now ??= this.world.clock.now()),
          this,
          options.to,
        ),
      );
      if (claimed === undefined) return undefined;
      if ('held' in claimed) {
        // The endpoint's health holds it (breaker open, rate spent): try again when it says.
        this.scheduleClaim(packName, deliveryId, kind, claimed.held);
        return undefined;
      }
      const attempt = this.attempt(pack, twin, deliveryId, claimed);
      if (claimed.sendAt <= this.world.clock.now()) return await runAttempt(this, attempt);
      // Claimed ahead of its rate slot: it is sent at the slot, as a clock task (a walk's clock
      // runs it when it reaches the slot; waiting here would hold the walk's settle).
      void this.atSlot(claimed.sendAt, attempt);
      return undefined;
    } finally {
      this.release();
    }
  }

  /**
   * The worker's batch: claims up to `limit` due records of a pack in one section (first attempts,
   * due retries, takeovers of lapsed claims), as many as this dispatcher has free slots for, and
   * starts each claimed attempt. On PostgreSQL the due records are picked so that records another
   * host is claiming are skipped. `busy` names records this process runs already. With `sendSlot`
   * each claimed attempt waits for one of the worker's send slots before it is signed.
   */
  async claimDue(
    packName: string,
    limit: number,
    busy: ReadonlySet<string> = new Set(),
    sendSlot?: SendSlot,
  ): Promise<TakenDelivery[]> {
    const pack = getPack(this.world, packName);
    const decl = pack.events!;
    const twin = this.world.twin(packTwinName(pack));
    const slots = Math.min(limit, this.concurrency - this.active);
    if (slots <= 0 || this.closed) return [];
    this.active += slots;
    let unused = slots;
    try {
      let at: number | undefined;
      const due = await this.decide(twin, (view) =>
        decideDueClaims(view, decl, (at ??= this.world.clock.now()), slots, this, (id) =>
          busy.has(id),
        ),
      );
      const now = this.world.clock.now();
      return due.map((d) => {
        const { claimed } = d;
        if (claimed === undefined)
          return { ...d, done: Promise.resolve(d.takenOver ? ('taken_over' as const) : undefined) };
        unused--;
        // The slot is free once the send is over: a claim made then shares the finish's section.
        let sent!: () => void;
        const freed = new Promise<void>((resolve) => (sent = resolve));
        let released = false;
        // A worker that claims ahead of its free send slots hands each attempt one before it signs.
        let leave: (() => void) | undefined;
        const slot: SlotWait | undefined =
          sendSlot === undefined
            ? undefined
            : {
                leaseUntil: at! + this.leaseMs,
                take: () => {
                  const got = sendSlot();
                  if (typeof got === 'function') {
                    leave = got;
                    return undefined;
                  }
                  // A slot that comes after the attempt ended goes back at once.
                  return got.then((giveBack) => {
                    if (released) giveBack();
                    else leave = giveBack;
                  });
                },
              };
        const release = (): void => {
          if (released) return;
          released = true;
          this.release();
          leave?.();
          sent();
        };
        const attempt = this.attempt(pack, twin, d.id, claimed);
        const paced = claimed.sendAt > now;
        const run = paced
          ? this.atSlot(claimed.sendAt, attempt, release, slot)
          : runAttempt(this, attempt, release, undefined, slot);
        void run.then(release, release);
        // A paced attempt is tracked from its send (atSlot), not while it waits on the clock:
        // idle() must not wait for a virtual clock that only moves once everything is idle.
        return { ...d, done: paced ? run : this.track(run), freed };
      });
    } finally {
      for (let i = 0; i < unused; i++) this.release();
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
    if (result !== undefined) return result;
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
   * Runs what is due once, from any process, at any time, while others work (dispatch/recover.ts).
   * `staleAfterMs` applies to records claimed before leases existed (default: one lease).
   */
  recover(options: { staleAfterMs?: number } = {}): Promise<RecoveryReport> {
    return recoverDue(
      {
        world: this.world,
        dispatch: (pack, id, kind) => this.track(this.dispatch(pack, id, kind)),
        takeOver: (pack, id, staleAfterMs) => this.takeOver(pack, id, staleAfterMs),
        scheduleClaim: (pack, id, kind, at) => this.scheduleClaim(pack, id, kind, at),
      },
      options.staleAfterMs ?? this.leaseMs,
    );
  }

  /**
   * Takes over one `sending` record whose sender's lease lapsed: its attempt is finished
   * `unknown` (`lease_expired`). A record claimed before leases existed counts as lapsed once its
   * attempt started `staleAfterMs` ago. False when its claim is live (or it is not sending).
   */
  async takeOver(pack: Pack, deliveryId: string, staleAfterMs = this.leaseMs): Promise<boolean> {
    checkRegisteredPack(this.world, pack, 'dispatcher.takeOver(pack, deliveryId)');
    // A pack without events has no deliveries to take over.
    if (pack.events === undefined) return false;
    const decl = pack.events;
    const twin = this.world.twin(packTwinName(pack));
    const now = this.world.clock.now();
    return this.decide(twin, (view) => decideTakeOver(view, decl, deliveryId, now, staleAfterMs));
  }

  /**
   * Acts on one record that fell due, whatever it needs — a first attempt, a due retry, or a
   * takeover of a lapsed claim. Undefined when there was nothing to do. `known` is the record's
   * state as the caller just read it (saves reading it again; the claim checks the state itself).
   */
  async runDue(
    packName: string,
    deliveryId: string,
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

  // ---- what the steps use (DispatchContext) ---------------------------------------------------

  isClosed(): boolean {
    return this.closed;
  }

  /** Claims and finishes of one loop turn share one exclusive section (see GroupCommit). */
  decide<T>(twin: Twin, decide: (view: ReadView) => Decision<T>): Promise<T> {
    let group = this.groups.get(twin.name);
    if (group === undefined)
      this.groups.set(
        twin.name,
        (group = new GroupCommit(twin, () => isoAt(this.world.clock.now()))),
      );
    return group.submit((view) => decide(view));
  }

  scheduleClaim(packName: string, deliveryId: string, kind: ClaimKind, at: number): void {
    if (this.closed) return;
    const cancel = this.world.clock.schedule(at, () => {
      this.cancels.delete(cancel);
      if (this.closed) return;
      return this.track(this.dispatch(packName, deliveryId, kind)).then(() => undefined);
    });
    this.cancels.add(cancel);
  }

  /**
   * Runs an attempt claimed ahead of its endpoint's rate slot when the clock reaches the slot
   * (health/pace.ts). Undefined if the dispatcher closes first: the claim is then handed back as a
   * late one is (undone, the delivery held to a new slot), not left to lapse, since until a
   * takeover finished it, an attempt out holds back the endpoint's attempts a span after it
   * (health/receiver-bound.ts).
   */
  private atSlot(
    at: number,
    attempt: Attempt,
    sent?: () => void,
    slot?: SlotWait,
  ): Promise<AttemptResult | undefined> {
    return new Promise((resolve) => {
      if (this.closed) return resolve(undefined);
      const stop = (): void => {
        cancel();
        resolve(this.track(handBack(this, attempt)).then(() => undefined));
      };
      const cancel = this.world.clock.schedule(at, () => {
        this.cancels.delete(stop);
        let leaving!: () => void;
        const left = new Promise<void>((r) => (leaving = r));
        const run = this.track(runAttempt(this, attempt, sent, leaving, slot));
        resolve(run);
        // A virtual clock moves on once the request has left or been held to a new slot, not
        // while it is signed: else a clock moved far ahead in one call would make it late for
        // its slot (health/late-send.ts) only because the clock jumped. A real clock does not wait.
        return Promise.race([left, run.then(() => undefined)]);
      });
      this.cancels.add(stop);
    });
  }

  // ---- internals -----------------------------------------------------------------------------

  private attempt(pack: Pack, twin: Twin, deliveryId: string, claimed: Claimed): Attempt {
    const { claim, record } = claimed;
    return {
      pack,
      twin,
      decl: pack.events!,
      deliveryId,
      claim,
      // A redeliver to another URL changes where this one attempt goes, nothing else of the packet.
      record: claim.url === undefined ? record : { ...record, url: claim.url },
      secretStamp: claimed.secretStamp,
      ...(claimed.slot === undefined ? {} : { slot: claimed.slot }),
    };
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
