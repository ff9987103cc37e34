// The secret store port: endpoint secrets live here, never in a log — records keep only a
// reference. Several secrets may be active at once while one rotates (old ones expire after a
// grace period). A deleted reference is retired for good: setting it again is refused, so a stale
// record that still names it can never pick up someone else's secret. Every backend (memory,
// the SQLite file, a database later) passes one conformance suite in test/storage/.
import { describeValue, TwinError } from '../errors.js';

/** A plain value or a promise of one: built-in backends answer synchronously, a vault may not. */
export type Awaitable<T> = T | Promise<T>;

export interface SecretStore {
  /** Replaces every secret of `ref` with one. Refused (SECRET_RETIRED) for a deleted ref. */
  set(ref: string, secret: string): Awaitable<void>;
  /** Adds `secret` as the current one and keeps the active old ones for `graceMs` from `now`. */
  rotate(ref: string, secret: string, now: number, graceMs: number): Awaitable<void>;
  /**
   * Secrets active at `now` (epoch ms), newest first; empty if the ref is unknown or deleted.
   * `stamp`, when given, is a value that changes whenever the ref's secrets may have changed in
   * another process (the dispatcher passes its endpoint's version: every rotation writes an entry
   * to the endpoint). A store whose reads cost a round trip may answer from what it read under the
   * same stamp; changes made through this store object are seen at once whatever the stamp.
   */
  resolve(ref: string, now: number, stamp?: string): Awaitable<string[]>;
  /** Removes the ref's secrets and retires the ref: it is never set again. */
  delete(ref: string): Awaitable<void>;
  /** Releases what the backend holds open (a file handle, a pool). */
  close?(): Awaitable<void>;
}

/**
 * A user's own vault, consulted first on every resolve: the secrets it answers for a ref are the
 * ref's secrets; `undefined` falls back to the store. Writes still go to the store.
 */
export type SecretResolver = (ref: string, now: number) => Awaitable<readonly string[] | undefined>;

export function checkRef(ref: unknown): string {
  if (typeof ref !== 'string' || ref === '' || ref.length > 512) {
    throw new TwinError(
      'INVALID_ARGUMENT',
      'a secret reference must be a non-empty string of at most 512 characters (e.g. the endpoint id)',
      { path: 'ref' },
    );
  }
  return ref;
}

export function checkSecret(secret: unknown): string {
  // Never echo the value: it may be a secret in the wrong shape.
  if (typeof secret !== 'string' || secret.trim() === '')
    throw new TwinError(
      'INVALID_ARGUMENT',
      'a secret must be a non-empty string (the value is not shown)',
      { path: 'secret' },
    );
  if (secret.length > 4096)
    throw new TwinError(
      'INVALID_ARGUMENT',
      `a secret is at most 4096 characters, this one has ${secret.length} (the value is not shown)`,
      { path: 'secret' },
    );
  return secret;
}

/**
 * resolve's arguments, checked with typeof alone (it runs for every signed delivery): a ref that
 * is no text answered [] as an unknown ref would, and a missing now dropped every secret still in
 * its grace period (no expiry compares greater than undefined).
 */
export function checkResolve(ref: unknown, now: unknown): void {
  if (typeof ref !== 'string')
    throw new TwinError(
      'INVALID_ARGUMENT',
      `resolve(ref, now): ref must be a secret reference (a string such as the endpoint id), got ${describeValue(ref)}`,
      { path: 'ref' },
    );
  if (typeof now !== 'number' || !Number.isFinite(now))
    throw new TwinError(
      'INVALID_ARGUMENT',
      `resolve(ref, now): now must be epoch milliseconds (world.clock.now()), got ${describeValue(now)}`,
      { path: 'now' },
    );
}

export function checkRotation(now: unknown, graceMs: unknown): void {
  if (typeof now !== 'number' || !Number.isFinite(now))
    throw new TwinError('INVALID_ARGUMENT', 'rotate: now must be epoch milliseconds', {
      path: 'now',
    });
  if (typeof graceMs !== 'number' || !Number.isFinite(graceMs) || graceMs < 0) {
    throw new TwinError(
      'INVALID_ARGUMENT',
      'rotate: graceMs must be a non-negative number of milliseconds',
      { path: 'graceMs' },
    );
  }
}

export function retired(ref: string): TwinError {
  return new TwinError(
    'SECRET_RETIRED',
    `secret reference "${ref}" was deleted and is retired for good; give the endpoint a new reference instead of reusing it`,
    { path: 'ref' },
  );
}

interface StoredSecret {
  readonly secret: string;
  /** Epoch ms after which the secret no longer signs; absent = current. */
  readonly expiresAt?: number;
}

/** Secrets in this process only: for ':memory:' worlds and tests. */
export class MemorySecretStore implements SecretStore {
  private readonly secrets = new Map<string, StoredSecret[]>();
  private readonly retiredRefs = new Set<string>();

  set(ref: string, secret: string): void {
    checkRef(ref);
    checkSecret(secret);
    if (this.retiredRefs.has(ref)) throw retired(ref);
    this.secrets.set(ref, [{ secret }]);
  }

  rotate(ref: string, secret: string, now: number, graceMs: number): void {
    checkRef(ref);
    checkSecret(secret);
    checkRotation(now, graceMs);
    if (this.retiredRefs.has(ref)) throw retired(ref);
    const old = (this.secrets.get(ref) ?? [])
      .filter((s) => s.expiresAt === undefined || s.expiresAt > now)
      .map((s) => ({
        secret: s.secret,
        expiresAt: Math.min(s.expiresAt ?? Infinity, now + graceMs),
      }));
    this.secrets.set(ref, [{ secret }, ...old]);
  }

  resolve(ref: string, now: number): string[] {
    checkResolve(ref, now);
    return (this.secrets.get(ref) ?? [])
      .filter((s) => s.expiresAt === undefined || s.expiresAt > now)
      .map((s) => s.secret);
  }

  delete(ref: string): void {
    checkRef(ref);
    this.secrets.delete(ref);
    this.retiredRefs.add(ref);
  }
}

/** A store with a vault in front of it: see SecretResolver. */
export class ResolvingSecretStore implements SecretStore {
  constructor(
    private readonly store: SecretStore,
    private readonly resolver: SecretResolver,
  ) {
    if (typeof resolver !== 'function')
      throw new TwinError(
        'INVALID_ARGUMENT',
        'resolveSecret must be a function (ref, now) => secrets | undefined',
        { path: 'resolveSecret' },
      );
  }

  set(ref: string, secret: string): Awaitable<void> {
    return this.store.set(ref, secret);
  }

  rotate(ref: string, secret: string, now: number, graceMs: number): Awaitable<void> {
    return this.store.rotate(ref, secret, now, graceMs);
  }

  resolve(ref: string, now: number, stamp?: string): Awaitable<string[]> {
    checkResolve(ref, now);
    const answer = this.resolver(ref, now);
    const settle = (found: readonly string[] | undefined): Awaitable<string[]> => {
      if (found === undefined) return this.store.resolve(ref, now, stamp);
      if (!Array.isArray(found) || !found.every((s) => typeof s === 'string' && s.trim() !== '')) {
        // Never echo what came back: it may be a secret in the wrong shape.
        throw new TwinError(
          'INVALID_CONFIG',
          `the secret resolver answered something other than an array of non-empty strings (or undefined) for reference "${ref}"`,
          { path: 'resolveSecret' },
        );
      }
      return [...found];
    };
    return isPromise(answer) ? answer.then(settle) : settle(answer);
  }

  delete(ref: string): Awaitable<void> {
    return this.store.delete(ref);
  }

  close(): Awaitable<void> {
    return this.store.close?.();
  }
}

/** Whether a value is to come later (a promise or any thenable) rather than here already. */
export function isPromise<T>(value: Awaitable<T>): value is Promise<T> {
  return (
    value !== null && typeof value === 'object' && typeof (value as Promise<T>).then === 'function'
  );
}
