// The world's id source: KSUIDs and vendor-shaped ids (cus_…, evt_…). Seeded sources give the
// same ids for the same seed and clock, so a walk writes the same log every time.
import { createHash, randomBytes } from 'node:crypto';
import type { Clock } from './clock.js';
import { describeValue, TwinError } from '../errors.js';

const KSUID_EPOCH_SEC = 1_400_000_000;

/**
 * A KSUID (4-byte seconds since 2014-05-13 + 16 random bytes, 27 base62 characters), encoded by
 * long division: the `ksuid` package's generic base conversion cost more than the rest of a write.
 * Five 32-bit words are divided by 62^3 at a time, so each of nine steps yields three digits and
 * every intermediate (below 62^3 · 2^32 < 2^50) is exact in a double. Tests check every id against
 * that package. Times before the KSUID epoch (a virtual clock may start there) clamp to it.
 */
export function encodeKsuid(ms: number, payload: Buffer): string {
  const words = KSUID_WORDS;
  words[0] = Math.min(0xffffffff, Math.max(0, Math.floor(ms / 1000) - KSUID_EPOCH_SEC));
  for (let i = 0; i < 4; i++) words[i + 1] = payload.readUInt32BE(i * 4);
  const digits = KSUID_DIGITS;
  for (let at = 27; at > 0;) {
    let remainder = 0;
    for (let i = 0; i < 5; i++) {
      const value = remainder * 0x1_0000_0000 + words[i]!;
      const quotient = Math.floor(value / 238_328);
      words[i] = quotient;
      remainder = value - quotient * 238_328;
    }
    for (let d = 0; d < 3; d++) {
      digits[--at] = BASE62_CODES[remainder % 62]!;
      remainder = (remainder / 62) | 0;
    }
  }
  return digits.toString('latin1');
}
/** The digits of KSUIDs and vendor ids, in ASCII order (so fixed-width numbers sort as numbers). */
export const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const BASE62_CODES = Buffer.from(BASE62, 'latin1');
// Scratch space: encoding is synchronous, so one buffer serves every call.
const KSUID_WORDS = new Float64Array(5);
const KSUID_DIGITS = Buffer.alloc(27);

export interface IdSource {
  /** 27-character KSUID whose time part is the world clock's (as `timeMs` reads it). */
  ksuid(): string;
  /**
   * The world clock in ms, for the time part of an id: inside a section, the reading its first
   * draw of time took, in every run. A run again after a read must draw the same ids, or an id
   * built from a later reading is one its reads never asked for, and each run waits on a new read.
   */
  timeMs(): number;
  /** `prefix_` + base62, e.g. vendorId('cus') → "cus_Q8h3…" (24 characters by default). */
  vendorId(prefix: string, length?: number): string;
  /** RFC 4122 version-4 shaped GUID (GitHub delivery ids). */
  uuid(): string;
  /** Uniform in [0, 1): for seeded jitter. */
  random(): number;
  bytes(n: number): Buffer;
  /**
   * Starts a section's first run: what it draws is recorded, so that a decide run again over an
   * asynchronous store (a read-set restart) redraws the same ids.
   */
  mark(): unknown;
  /** Starts a re-run of the section `mark` began: its next draws repeat what its last run drew. */
  reset(mark: unknown): void;
  /**
   * A run of the section ended (synchronously, so no one else drew during it). Draws until the
   * next `reset` are not the section's; what the run left of the replay goes to whoever draws next.
   */
  release?(mark: unknown): void;
  /**
   * The id a log entry's write carries, from its twin and seq: drawn fresh when unseeded; from a
   * seeded source, derived from the seed, twin and seq rather than drawn, so the writes of
   * background work (delivery claims and finishes, interleaved by timing) take nothing from the
   * stream the vendor's own objects are drawn from.
   */
  writeId?(twin: string, seq: number): string;
  /**
   * A source of its own for one purpose (e.g. "delivery": trace ids, retry jitter): seeded from this
   * one's seed and the purpose, so work whose timing varies run to run draws without moving the ids
   * this source hands out. An unseeded source may answer itself.
   */
  stream?(purpose: string): IdSource;
  /**
   * Whether the section run now going drew `id` here: the whole id (ksuid, vendorId, uuid), an id
   * ending with one (`ep_` + a KSUID), or one registered with `mint`. Such an id names no stored row
   * unless the same ids are drawn again (a seeded source run twice on one store), so a section that
   * goes optimistically takes its row for absent and its commit checks that (StoreTx.expect).
   */
  minted?(id: string): boolean;
  /** Registers an id built from this run's draws in another shape (delivery-id.ts) as minted. */
  mint?(id: string): void;
}

/** What one section drew in its last run, and what its current run has yet to draw again. */
interface Tape {
  drawn: Buffer[];
  replay: Buffer | undefined;
  /** The clock as the section first read it for an id (timeMs). */
  at?: number;
  /** Ids this run handed out (IdSource.minted), and their lengths. */
  minted?: Set<string>;
  mintedLengths?: Set<number>;
}

/**
 * vendorId() wrote "undefined_…", a length of 1.5 "cus_3undefined" and -1 a bare "cus_": ids that
 * went into the log as given.
 */
function checkVendorId(prefix: unknown, length: unknown): void {
  if (typeof prefix !== 'string')
    throw new TwinError(
      'INVALID_ARGUMENT',
      `vendorId(prefix, length?): prefix must be a string such as "cus" (or "" for none), got ${describeValue(prefix)}`,
      { path: 'prefix' },
    );
  if (typeof length !== 'number' || !Number.isSafeInteger(length) || length < 1)
    throw new TwinError(
      'INVALID_ARGUMENT',
      `vendorId(prefix, length?): length must be a whole number of characters, 1 or more (24 if omitted), got ${describeValue(length)}`,
      { path: 'length' },
    );
}

/** A shorter tail of a longer id is not taken as minted: too few characters to be unique. */
const MINTED_TAIL = 12;

/**
 * Draws come from `fresh` (the source's own stream) after any bytes handed back. A section's
 * runs record what they draw on its tape and a re-run replays it first — its own bytes, not the
 * stream's position, so sections on other twins drawing while it waited for a load neither take
 * its ids nor change them. Without such interleaving the bytes are exactly those of rewinding the
 * stream, so seeded walks keep their logs.
 */
abstract class BaseIds implements IdSource {
  private active: Tape | undefined;
  /** Bytes a finished run did not use again, drawn before the stream's own. */
  private handedBack: Buffer = Buffer.alloc(0);

  constructor(protected readonly clock: Clock) {}
  protected abstract fresh(n: number): Buffer;

  bytes(n: number): Buffer {
    const tape = this.active;
    let out: Buffer;
    if (tape?.replay !== undefined && tape.replay.length > 0) {
      const head = tape.replay.subarray(0, n);
      tape.replay = tape.replay.subarray(head.length);
      out =
        head.length === n ? Buffer.from(head) : Buffer.concat([head, this.next(n - head.length)]);
    } else out = this.next(n);
    tape?.drawn.push(out);
    return out;
  }

  private next(n: number): Buffer {
    if (this.handedBack.length === 0) return this.fresh(n);
    const head = this.handedBack.subarray(0, n);
    this.handedBack = this.handedBack.subarray(head.length);
    return head.length === n
      ? Buffer.from(head)
      : Buffer.concat([head, this.fresh(n - head.length)]);
  }

  mark(): unknown {
    const tape: Tape = { drawn: [], replay: undefined };
    this.active = tape;
    return tape;
  }

  reset(mark: unknown): void {
    const tape = mark as Tape;
    tape.replay = Buffer.concat(tape.drawn);
    tape.drawn = [];
    // The run again draws the same ids, and mints them again.
    tape.minted = undefined;
    tape.mintedLengths = undefined;
    this.active = tape;
  }

  release(mark: unknown): void {
    const tape = mark as Tape;
    if (this.active === tape) this.active = undefined;
    if (tape.replay !== undefined && tape.replay.length > 0)
      this.handedBack = Buffer.concat([tape.replay, this.handedBack]);
    tape.replay = undefined;
  }

  timeMs(): number {
    const tape = this.active;
    if (tape === undefined) return this.clock.now();
    return (tape.at ??= this.clock.now());
  }

  ksuid(): string {
    return this.mint(encodeKsuid(this.timeMs(), this.bytes(16)));
  }

  vendorId(prefix: string, length = 24): string {
    checkVendorId(prefix, length);
    const raw = this.bytes(length);
    let out = '';
    for (let i = 0; i < length; i++) out += BASE62[raw[i]! % 62];
    return this.mint(prefix === '' ? out : `${prefix}_${out}`);
  }

  uuid(): string {
    const b = this.bytes(16);
    b[6] = (b[6]! & 0x0f) | 0x40;
    b[8] = (b[8]! & 0x3f) | 0x80;
    const h = b.toString('hex');
    return this.mint(
      `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`,
    );
  }

  mint(id: string): string {
    const tape = this.active;
    if (tape !== undefined) {
      (tape.minted ??= new Set()).add(id);
      (tape.mintedLengths ??= new Set()).add(id.length);
    }
    return id;
  }

  minted(id: string): boolean {
    const tape = this.active;
    if (tape?.minted === undefined) return false;
    if (tape.minted.has(id)) return true;
    for (const n of tape.mintedLengths!)
      if (n >= MINTED_TAIL && n < id.length && tape.minted.has(id.slice(id.length - n)))
        return true;
    return false;
  }

  random(): number {
    return this.bytes(6).readUIntBE(0, 6) / 2 ** 48;
  }

  writeId(_twin: string, _seq: number): string {
    return this.ksuid();
  }

  stream(_purpose: string): IdSource {
    return this;
  }
}

export class RandomIds extends BaseIds {
  // One large draw serves many ids: a randomBytes call per id costs more than the id itself.
  private pool = Buffer.alloc(0);

  protected fresh(n: number): Buffer {
    if (this.pool.length < n) this.pool = randomBytes(Math.max(4096, n));
    const out = Buffer.from(this.pool.subarray(0, n));
    this.pool = this.pool.subarray(n);
    return out;
  }
}

/** SHA-256 in counter mode over the seed: slower than a toy PRNG, but well distributed and portable. */
export class SeededIds extends BaseIds {
  private counter = 0;
  private pool: Buffer<ArrayBuffer> = Buffer.alloc(0);
  private readonly seed: string;

  private readonly streams = new Map<string, SeededIds>();

  constructor(clock: Clock, seed: string | number) {
    // String(seed) takes anything: no seed seeded every such source with the text "undefined",
    // so two tests that forgot it drew the same ids without a word.
    if (typeof (clock as Partial<Clock> | null | undefined)?.now !== 'function')
      throw new TwinError(
        'INVALID_ARGUMENT',
        `new SeededIds(clock, seed): clock must be a Clock (new VirtualClock(0)), got ${describeValue(clock)}`,
        { path: 'clock' },
      );
    if (!(typeof seed === 'string' || (typeof seed === 'number' && Number.isFinite(seed))))
      throw new TwinError(
        'INVALID_ARGUMENT',
        `new SeededIds(clock, seed): seed must be a string or a finite number, got ${describeValue(seed)}`,
        { path: 'seed' },
      );
    super(clock);
    this.seed = String(seed);
  }

  override writeId(twin: string, seq: number): string {
    const payload = createHash('sha256').update(`${this.seed}\u0000write\u0000${twin}\u0000${seq}`);
    return encodeKsuid(this.clock.now(), payload.digest().subarray(0, 16));
  }

  override stream(purpose: string): IdSource {
    let child = this.streams.get(purpose);
    if (child === undefined)
      this.streams.set(
        purpose,
        (child = new SeededIds(this.clock, `${this.seed}\u0000${purpose}`)),
      );
    return child;
  }

  protected fresh(n: number): Buffer {
    while (this.pool.length < n) {
      const block = createHash('sha256').update(`${this.seed}:${this.counter++}`).digest();
      this.pool = Buffer.concat([this.pool, block]);
    }
    const out = this.pool.subarray(0, n);
    this.pool = this.pool.subarray(n);
    return Buffer.from(out);
  }
}
