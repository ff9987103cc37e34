// Stable 64-bit advisory-lock keys. Every host and every version of twinworld must compute the same key
// for the same (world, twin), so it is the first 8 bytes of a SHA-256, never a runtime hash.
import { createHash } from 'node:crypto';

export function lockKey(...parts: readonly string[]): bigint {
  const digest = createHash('sha256')
    .update(['twinworld', ...parts].join('\u0000'))
    .digest();
  return digest.readBigInt64BE(0);
}

export function twinLockKey(world: string, twin: string): bigint {
  return lockKey('twin', world, twin);
}

/** Taking a twin's lock, as every write section starts: prepared once per session (connection.ts). */
export const PREPARE_LOCK = 'PREPARE twinworld_lock (bigint) AS SELECT pg_advisory_xact_lock($1)';

export function lockStatement(key: bigint): string {
  return `EXECUTE twinworld_lock(${key})`;
}

/** Held (per database) while migrating, so hosts starting at once migrate one after the other. */
export const MIGRATION_LOCK_KEY = lockKey('migrate');
