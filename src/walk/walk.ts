// A walk: a seeded world on a virtual clock, its packs registered, one dispatcher sending one
// delivery at a time (so every claim, finish and id draw happens in one fixed order), receivers
// that fail on purpose, and a clock that settles after each step. Same walk, same bytes.
import { createHash } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { TwinError } from '../errors.js';
import type { StorageBackend } from '../storage/port.js';
import { Dispatcher, type SignedPacket } from '../events/dispatcher.js';
import { withTraceContext } from '../events/trace.js';
import type { OutgoingRequest, Transport } from '../events/transports/transport.js';
import { isoAt, type ClockTime } from '../world/clock.js';
import { packTwinName, registerPack, registeredPacks, type Pack } from '../events/pack-registry.js';
import type { Twin } from '../world/twin.js';
import { openWorld, type World } from '../world/world.js';
import { exportWorldLines, worldHashes } from './export-log.js';
import type { FaultProfile } from './fault-profile.js';
import { FaultReceiver, type PacketIdentity } from './fault-receiver.js';
import { writeFixture } from './golden.js';
import { receiverUrl } from './receiver-transport.js';
import { deliveryReports, receiverReports, type WalkReport } from './report.js';
import { triggerReport } from './trigger-report.js';
import { WalkClock, type Ticker } from './walk-clock.js';
import { walkSeed, walkStart } from './walk-start.js';
import { WalkRouter } from './walk-router.js';

export const DEFAULT_WALK_START = '2026-01-01T00:00:00.000Z';

export interface WalkOptions {
  /** Seeds the world's ids and every receiver's draws: the same seed, the same log. */
  readonly seed: string | number;
  /**
   * Where the virtual clock starts: an ISO time with its zone, a date YYYY-MM-DD (midnight UTC),
   * whole epoch ms or a Date; default 2026-01-01T00:00:00Z. A time without a zone, or off the
   * calendar, is refused.
   */
  readonly start?: ClockTime;
  /** A folder to keep the world in, or ':memory:' (default). */
  readonly root?: string;
  /** Another storage backend (PostgreSQL, say): the same walk writes the same log on every one. */
  readonly backend?: StorageBackend;
  /** Packs to register; their twins are what the walk drives. */
  readonly packs?: readonly Pack[];
  /** For URLs that are neither receivers nor mounts; default HTTP signed on the world clock. */
  readonly transport?: Transport;
  /** Where background errors go (a missing secret, a throwing observer); default: kept in walk.errors. */
  readonly onError?: (error: unknown, where: string) => void;
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
const HOST_LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

export class Walk {
  readonly world: World;
  readonly clock: WalkClock;
  readonly dispatcher: Dispatcher;
  readonly seed: string;
  readonly start: string;
  /** Every signed packet the dispatcher sent, in order (seeing one is not evidence it arrived). */
  readonly packets: SignedPacket[] = [];
  readonly receivers = new Map<string, FaultReceiver>();
  private readonly router: WalkRouter;
  private readonly identities = new WeakMap<object, PacketIdentity>();
  private readonly attemptWallMs: Record<string, number> = {};
  private readonly settlers: (() => Promise<void>)[] = [];
  /** Background errors the world reported, when no onError was given. */
  readonly errors: { readonly where: string; readonly error: unknown }[] = [];
  private readonly startedWall = performance.now();
  private traces = 0;
  private closed = false;

  constructor(options: WalkOptions) {
    if (options === null || typeof options !== 'object')
      throw new TwinError(
        'INVALID_ARGUMENT',
        'openWalk({seed, start?, root?, packs?}) needs an options object',
        { path: 'options' },
      );
    this.seed = walkSeed(options.seed);
    if (options.packs !== undefined && !Array.isArray(options.packs))
      throw new TwinError(
        'INVALID_ARGUMENT',
        'packs must be an array of packs, e.g. [stripe.pack]',
        { path: 'packs' },
      );
    this.clock = new WalkClock(walkStart(options.start ?? DEFAULT_WALK_START));
    this.start = isoAt(this.clock.now());
    const onError =
      options.onError ??
      ((error: unknown, where: string) => void this.errors.push({ error, where }));
    this.world = openWorld({
      root: options.root ?? ':memory:',
      clock: this.clock,
      seed: this.seed,
      onError,
      ...(options.backend === undefined ? {} : { backend: options.backend }),
    });
    for (const pack of options.packs ?? []) registerPack(this.world, pack);
    this.router = new WalkRouter(
      this.clock,
      this.receivers,
      (headers, ms) => this.timed(headers, ms),
      options.transport,
    );
    // One delivery at a time: claims, finishes and the ids they draw happen in one fixed order.
    this.dispatcher = new Dispatcher(this.world, {
      defaultTransport: this.router,
      concurrency: 1,
      autoDispatch: 'on-flush',
    });
    this.dispatcher.observe((packet) => {
      this.packets.push(packet);
      this.identities.set(packet.headers, {
        pack: packet.pack,
        deliveryId: packet.deliveryId,
        attempt: packet.attempt,
        eventType: packet.eventType,
      });
    });
    this.clock.onStep(() => this.settle());
  }

  /** The twin of a registered pack, by the pack's name. */
  twin(packName: string): Twin {
    const pack = registeredPacks(this.world).get(packName);
    if (pack === undefined) {
      throw new TwinError(
        'UNKNOWN_PACK',
        `this walk has no pack "${packName}"; it has: ${[...registeredPacks(this.world).keys()].join(', ') || 'none'} (pass packs to openWalk)`,
        { path: 'pack' },
      );
    }
    return this.world.twin(packTwinName(pack));
  }

  /** Registers a pack after opening; its new delivery records are dispatched like the others. */
  addPack(pack: Pack): Twin {
    const twin = registerPack(this.world, pack);
    this.dispatcher.attach(pack);
    return twin;
  }

  /** A fault-injecting receiver in this process; point endpoints at `receiver.url`. */
  receiver(name: string, profile?: FaultProfile): FaultReceiver {
    if (typeof name !== 'string' || !NAME.test(name))
      throw new TwinError(
        'INVALID_ARGUMENT',
        `receiver name ${JSON.stringify(name)} is not valid; use 1–64 letters, digits, '_', '.', '-'`,
        { path: 'name' },
      );
    if (this.receivers.has(name))
      throw new TwinError('INVALID_ARGUMENT', `this walk already has a receiver "${name}"`, {
        path: 'name',
      });
    const receiver = new FaultReceiver(
      name,
      receiverUrl(name),
      profile,
      this.clock,
      `${this.seed}/receiver/${name}`,
      (headers) => this.identities.get(headers),
    );
    this.receivers.set(name, receiver);
    return receiver;
  }

  /**
   * Gives a real server (say, the ingress host on a random port) a stable name: endpoints use
   * the answered URL, http://<name>.walk.invalid/, and the log never sees the port.
   */
  mount(name: string, target: string): string {
    if (typeof name !== 'string' || !HOST_LABEL.test(name) || name === 'receivers') {
      throw new TwinError(
        'INVALID_ARGUMENT',
        `mount name ${JSON.stringify(name)} must be a lowercase host label (letters, digits, '-'), not "receivers"`,
        { path: 'name' },
      );
    }
    let url: URL;
    try {
      url = new URL(target);
    } catch {
      throw new TwinError(
        'INVALID_ARGUMENT',
        `mount target ${JSON.stringify(target)} is not a URL; give e.g. http://127.0.0.1:40123`,
        { path: 'target' },
      );
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new TwinError('INVALID_ARGUMENT', 'a mount target must be an http(s) URL', {
        path: 'target',
      });
    return this.router.mount(name, target);
  }

  /** Watches every signed packet just before it is sent. */
  observe(fn: (packet: SignedPacket) => void): () => void {
    return this.dispatcher.observe(fn);
  }

  /** Something that falls due on the clock by itself (a calendar): ticked as the clock passes it. */
  addTicker(ticker: Ticker): () => void {
    return this.clock.addTicker(ticker);
  }

  /** Work settle() must also wait for (a trigger engine's in-flight runs). */
  addSettler(fn: () => Promise<void>): void {
    this.settlers.push(fn);
  }

  /** A new W3C traceparent, drawn from the walk's seed (not the world's ids, so it shifts nothing). */
  traceparent(): string {
    const h = createHash('sha256').update(`${this.seed}/trace/${++this.traces}`).digest('hex');
    return `00-${h.slice(0, 32)}-${h.slice(32, 48)}-01`;
  }

  /** Runs `fn` under a traceparent: deliveries its writes cause carry the trace on every attempt. */
  traced<T>(fn: () => T, traceparent: string = this.traceparent()): T {
    return withTraceContext({ traceparent }, fn);
  }

  /** Waits until no delivery (and no registered settler's work) is in flight. */
  async settle(): Promise<void> {
    // Twice: work finishing in the first round (a routine's write) may queue more deliveries.
    for (let round = 0; round < 2; round++) {
      await new Promise((resolve) => setImmediate(resolve));
      this.dispatcher.flush();
      await this.dispatcher.idle();
      for (const settle of this.settlers) await settle();
    }
  }

  /** Moves the clock forward, running due retries and ticks one at a time, settling after each. */
  async advance(ms: number): Promise<void> {
    await this.clock.advance(ms);
  }

  async advanceTo(time: ClockTime): Promise<void> {
    await this.clock.set(time);
  }

  /** Advances until nothing is scheduled (every retry spent or done), at most `horizonMs` ahead. */
  async runUntilIdle(horizonMs = 30 * 24 * 3600_000): Promise<void> {
    // A string ("1d") or NaN would make the limit NaN, and every comparison with it false: the
    // walk would return at once, every retry unrun, and look idle.
    if (typeof horizonMs !== 'number' || Number.isNaN(horizonMs) || horizonMs < 0)
      throw new TwinError(
        'INVALID_ARGUMENT',
        `runUntilIdle: the horizon must be a non-negative number of milliseconds (e.g. 7 * 24 * 3600_000 for a week), got ${typeof horizonMs === 'string' ? JSON.stringify(horizonMs) : String(horizonMs)}`,
        { path: 'horizonMs' },
      );
    const limit = this.clock.now() + horizonMs;
    await this.settle();
    for (
      let next = await this.clock.nextDue();
      next !== undefined && next <= limit;
      next = await this.clock.nextDue()
    )
      await this.clock.set(Math.max(next, this.clock.now()));
  }

  /** Every twin's log as one JSONL stream in world-clock order. */
  exportLog(): Promise<string[]> {
    return exportWorldLines(this.world);
  }

  hashes(): Promise<Record<string, string>> {
    return worldHashes(this.world);
  }

  async report(): Promise<WalkReport> {
    const lines = await this.exportLog();
    return {
      seed: this.seed,
      clock: { start: this.start, now: isoAt(this.clock.now()) },
      deliveries: await deliveryReports(this.world),
      receivers: receiverReports(this.receivers.values()),
      triggers: await triggerReport(this.world),
      hashes: await this.hashes(),
      entries: lines.length,
      wall: {
        totalMs: round(performance.now() - this.startedWall),
        attemptMs: { ...this.attemptWallMs },
      },
    };
  }

  /** Writes fixtures/<name>.jsonl and fixtures/<name>.json ({hashes, entries, seed, start}). */
  async saveFixture(
    name: string,
    options: { dir?: string } = {},
  ): Promise<{ jsonl: string; json: string }> {
    const lines = await this.exportLog();
    return writeFixture(options.dir ?? 'fixtures', name, lines, {
      walk: name,
      seed: this.seed,
      start: this.start,
      entries: lines.length,
      hashes: await this.hashes(),
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    try {
      await this.settle();
    } finally {
      await this.world.close();
      this.router.close();
    }
  }

  private timed(headers: OutgoingRequest['headers'], ms: number): void {
    const id = this.identities.get(headers);
    if (id !== undefined) this.attemptWallMs[`${id.deliveryId}.${id.attempt}`] = round(ms);
  }
}

function round(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}

export async function openWalk(options: WalkOptions): Promise<Walk> {
  return new Walk(options);
}
