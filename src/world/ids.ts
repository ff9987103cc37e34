// The world's id source: KSUIDs and vendor-shaped ids (cus_…, evt_…). Seeded sources give the
// same ids for the same seed and clock, so a walk writes the same log every time.
import { createHash, randomBytes } from 'node:crypto';
import type { Clock } from './clock.js';

const KSUID_EPOCH_SEC = 1_400_000_000;

/**
 * A KSUID (4-byte seconds since 2014-05-13 + 16 random bytes, 27 base62 characters), encoded by
 * long division on 32-bit words: the `ksuid` package's generic base conversion cost more than
 * the rest of a write. Tests check every id parses with that package. Times before the KSUID
 * epoch (a virtual clock may start there) clamp to it.
 */
export function encodeKsuid(ms: number, payload: Buffer): string {
  const seconds = Math.min(0xffffffff, Math.max(0, Math.floor(ms / 1000) - KSUID_EPOCH_SEC));
  // Ten 16-bit words, divided by 62^4 at a time: each step yields four digits and every
  // intermediate stays far below 2^53.
  const words = [seconds >>> 16, seconds & 0xffff];
  for (let i = 0; i < 16; i += 2) words.push(payload.readUInt16BE(i));
  let out = '';
  for (let group = 0; group < 7; group++) {
    let remainder = 0;
    for (let i = 0; i < words.length; i++) {
      const value = remainder * 0x10000 + words[i]!;
      words[i] = Math.floor(value / 14_776_336);
      remainder = value % 14_776_336;
    }
    for (let d = 0; d < 4; d++) {
      out = BASE62[remainder % 62]! + out;
      remainder = Math.floor(remainder / 62);
    }
  }
  // 7 groups give 28 digits; a KSUID has 27 (the top one is always 0).
  return out.slice(1);
}
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

export interface IdSource {
  /** 27-character KSUID whose time part is the world clock's. */
  ksuid(): string;
  /** `prefix_` + base62, e.g. vendorId('cus') → "cus_Q8h3…" (24 characters by default). */
  vendorId(prefix: string, length?: number): string;
  /** RFC 4122 version-4 shaped GUID (GitHub delivery ids). */
  uuid(): string;
  /** Uniform in [0, 1): for seeded jitter. */
  random(): number;
  bytes(n: number): Buffer;
  /** A point to rewind to: a decide run again over an asynchronous store redraws the same ids. */
  mark(): unknown;
  reset(mark: unknown): void;
}

abstract class BaseIds implements IdSource {
  constructor(protected readonly clock: Clock) {}
  abstract bytes(n: number): Buffer;
  abstract mark(): unknown;
  abstract reset(mark: unknown): void;

  ksuid(): string {
    return encodeKsuid(this.clock.now(), this.bytes(16));
  }

  vendorId(prefix: string, length = 24): string {
    const raw = this.bytes(length);
    let out = '';
    for (let i = 0; i < length; i++) out += BASE62[raw[i]! % 62];
    return prefix === '' ? out : `${prefix}_${out}`;
  }

  uuid(): string {
    const b = this.bytes(16);
    b[6] = (b[6]! & 0x0f) | 0x40;
    b[8] = (b[8]! & 0x3f) | 0x80;
    const h = b.toString('hex');
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
  }

  random(): number {
    return this.bytes(6).readUIntBE(0, 6) / 2 ** 48;
  }
}

export class RandomIds extends BaseIds {
  // One large draw serves many ids: a randomBytes call per id costs more than the id itself.
  private pool = Buffer.alloc(0);

  bytes(n: number): Buffer {
    if (this.pool.length < n) this.pool = randomBytes(Math.max(4096, n));
    const out = Buffer.from(this.pool.subarray(0, n));
    this.pool = this.pool.subarray(n);
    return out;
  }

  // Random ids need no rewinding: a re-run draws fresh ones, as a first run would have.
  mark(): unknown {
    return undefined;
  }

  reset(): void {}
}

/** SHA-256 in counter mode over the seed: slower than a toy PRNG, but well distributed and portable. */
export class SeededIds extends BaseIds {
  private counter = 0;
  private pool: Buffer<ArrayBuffer> = Buffer.alloc(0);
  private readonly seed: string;

  constructor(clock: Clock, seed: string | number) {
    super(clock);
    this.seed = String(seed);
  }

  bytes(n: number): Buffer {
    while (this.pool.length < n) {
      const block = createHash('sha256').update(`${this.seed}:${this.counter++}`).digest();
      this.pool = Buffer.concat([this.pool, block]);
    }
    const out = this.pool.subarray(0, n);
    this.pool = this.pool.subarray(n);
    return Buffer.from(out);
  }

  mark(): unknown {
    return { counter: this.counter, pool: this.pool };
  }

  reset(mark: unknown): void {
    const m = mark as { counter: number; pool: Buffer<ArrayBuffer> };
    this.counter = m.counter;
    this.pool = m.pool;
  }
}
