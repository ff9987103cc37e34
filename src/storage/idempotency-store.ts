// The idempotency store port: what a vendor surface remembers about requests that carried an
// idempotency key (Stripe's `Idempotency-Key`), kept beside the log and never in it — the keys an
// SDK draws are random per run, and a log must stay the same for the same script and seed. Each
// key is scoped (one account), claimed before its request runs, finished with the saved answer,
// and forgotten `ttlMs` after its claim on the world clock. Bounded: every claim prunes expired
// rows. Every backend passes one conformance suite in test/storage/.
import { TwinError } from '../errors.js';
import type { Awaitable } from './secret-store.js';

/** A saved answer: replayed byte for byte to a repeat of the same request. */
export interface SavedAnswer {
  readonly status: number;
  readonly body: string;
}

export type IdempotencyClaim =
  /** The key is new (or expired): this caller runs the request and must finish or release it. */
  | { readonly state: 'claimed' }
  /** Another request holds the key and has not finished. */
  | { readonly state: 'in_progress'; readonly fingerprint: string }
  /** A request under the key finished: its fingerprint and saved answer. */
  | { readonly state: 'done'; readonly fingerprint: string; readonly answer: SavedAnswer };

export interface IdempotencyStore {
  /**
   * Claims `(scope, key)` for a request whose parameters hash to `fingerprint`, at `now` (world
   * clock, epoch ms), kept until `now + ttlMs`; or tells what holds the key already.
   */
  claim(
    scope: string,
    key: string,
    fingerprint: string,
    now: number,
    ttlMs: number,
  ): Awaitable<IdempotencyClaim>;
  /** Saves the answer of a claimed key. */
  finish(scope: string, key: string, answer: SavedAnswer): Awaitable<void>;
  /** Gives a claimed key up unanswered (the request was refused before it ran): a retry runs anew. */
  release(scope: string, key: string): Awaitable<void>;
  close?(): Awaitable<void>;
}

/** Checked before any backend sees a value. */
export function checkIdempotencyArgs(
  scope: unknown,
  key: unknown,
  fingerprint?: unknown,
  now?: unknown,
  ttlMs?: unknown,
): void {
  const text = (value: unknown, path: string, max: number): void => {
    if (typeof value !== 'string' || value === '' || value.length > max || value.includes('\u0000'))
      throw new TwinError(
        'INVALID_ARGUMENT',
        `idempotency ${path} must be a non-empty string of at most ${max} characters without NUL`,
        { path },
      );
  };
  text(scope, 'scope', 256);
  text(key, 'key', 255);
  if (fingerprint !== undefined) text(fingerprint, 'fingerprint', 256);
  if (now !== undefined && (typeof now !== 'number' || !Number.isFinite(now)))
    throw new TwinError('INVALID_ARGUMENT', 'idempotency claim: now must be epoch milliseconds', {
      path: 'now',
    });
  if (ttlMs !== undefined && (typeof ttlMs !== 'number' || !Number.isFinite(ttlMs) || ttlMs <= 0))
    throw new TwinError('INVALID_ARGUMENT', 'idempotency claim: ttlMs must be a positive number', {
      path: 'ttlMs',
    });
}

export function checkAnswer(answer: SavedAnswer): void {
  if (
    answer === null ||
    typeof answer !== 'object' ||
    !Number.isInteger(answer.status) ||
    answer.status < 100 ||
    answer.status > 599 ||
    typeof answer.body !== 'string'
  )
    throw new TwinError('INVALID_ARGUMENT', 'a saved answer is { status: 100–599, body: string }', {
      path: 'answer',
    });
}

interface Row {
  fingerprint: string;
  expiresAt: number;
  answer: SavedAnswer | undefined;
}

/** Keys in this process only: for ':memory:' worlds and tests. */
export class MemoryIdempotencyStore implements IdempotencyStore {
  private readonly rows = new Map<string, Row>();

  claim(
    scope: string,
    key: string,
    fingerprint: string,
    now: number,
    ttlMs: number,
  ): IdempotencyClaim {
    checkIdempotencyArgs(scope, key, fingerprint, now, ttlMs);
    for (const [k, row] of this.rows) if (row.expiresAt <= now) this.rows.delete(k);
    const id = `${scope}\u0000${key}`;
    const row = this.rows.get(id);
    if (row === undefined) {
      this.rows.set(id, { fingerprint, expiresAt: now + ttlMs, answer: undefined });
      return { state: 'claimed' };
    }
    return row.answer === undefined
      ? { state: 'in_progress', fingerprint: row.fingerprint }
      : { state: 'done', fingerprint: row.fingerprint, answer: row.answer };
  }

  finish(scope: string, key: string, answer: SavedAnswer): void {
    checkIdempotencyArgs(scope, key);
    checkAnswer(answer);
    const row = this.rows.get(`${scope}\u0000${key}`);
    if (row !== undefined) row.answer = { status: answer.status, body: answer.body };
  }

  release(scope: string, key: string): void {
    checkIdempotencyArgs(scope, key);
    const id = `${scope}\u0000${key}`;
    if (this.rows.get(id)?.answer === undefined) this.rows.delete(id);
  }
}
