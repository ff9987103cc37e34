// One conformance suite for the IdempotencyStore port: memory, the root's SQLite file (and a second
// handle on it, as another process would open it) and a world's table on PostgreSQL.
import { rmSync } from 'node:fs';
import pg from 'pg';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { isTwinError } from '../../src/errors.js';
import {
  MemoryIdempotencyStore,
  type IdempotencyStore,
} from '../../src/storage/idempotency-store.js';
import { SqliteIdempotencyStore } from '../../src/storage/sqlite/sqlite-idempotency-store.js';
import { PostgresBackend } from '../../src/storage/postgres/index.js';
import { tempDir } from '../support/backends.js';
import { postgresUrl } from './postgres-url.js';
import { rawClient, uniqueName } from './postgres-support.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** A store, and a second handle on the same storage (the same object where there is no other). */
const stores: {
  name: string;
  create: () => { a: IdempotencyStore; b: IdempotencyStore; close: () => Promise<void> };
}[] = [
  {
    name: 'memory',
    create: () => {
      const a = new MemoryIdempotencyStore();
      return { a, b: a, close: async () => {} };
    },
  },
  {
    name: 'sqlite file',
    create: () => {
      const dir = tempDir('twinworld-idem-');
      dirs.push(dir);
      const a = new SqliteIdempotencyStore(dir);
      const b = new SqliteIdempotencyStore(dir);
      return {
        a,
        b,
        close: async () => {
          a.close();
          b.close();
        },
      };
    },
  },
  {
    name: 'postgres table',
    create: () => {
      const world = uniqueName('idem');
      const one = new PostgresBackend(postgresUrl(), world);
      const two = new PostgresBackend(postgresUrl(), world);
      return {
        a: one.idempotencyStore(),
        b: two.idempotencyStore(),
        close: async () => {
          await one.close();
          await two.close();
        },
      };
    },
  },
];

const DAY = 24 * 3600_000;
const T0 = Date.parse('2026-05-01T00:00:00Z');

async function refusal(fn: () => unknown): Promise<string> {
  try {
    await fn();
  } catch (error) {
    return isTwinError(error) ? `${error.code}:${error.path}` : 'other';
  }
  return 'none';
}

describe.each(stores)('idempotency store: $name', ({ create }) => {
  it('claims a new key once; a second claim sees it in progress, then done with the saved answer', async () => {
    const { a, b, close } = create();
    try {
      expect(await a.claim('acct_1', 'k1', 'fp1', T0, DAY)).toEqual({ state: 'claimed' });
      expect(await b.claim('acct_1', 'k1', 'fp1', T0 + 1, DAY)).toEqual({
        state: 'in_progress',
        fingerprint: 'fp1',
      });
      await a.finish('acct_1', 'k1', { status: 402, body: '{"error":{"type":"card_error"}}' });
      expect(await b.claim('acct_1', 'k1', 'fp2', T0 + 2, DAY)).toEqual({
        state: 'done',
        fingerprint: 'fp1',
        answer: { status: 402, body: '{"error":{"type":"card_error"}}' },
      });
    } finally {
      await close();
    }
  });

  it('keeps scopes apart, forgets a key after its ttl, and a released key is claimed anew', async () => {
    const { a, b, close } = create();
    try {
      expect(await a.claim('acct_1', 'k', 'fp', T0, DAY)).toEqual({ state: 'claimed' });
      expect(await b.claim('acct_2', 'k', 'fp', T0, DAY)).toEqual({ state: 'claimed' });
      await a.finish('acct_1', 'k', { status: 200, body: '{}' });
      expect((await b.claim('acct_1', 'k', 'fp', T0 + DAY - 1, DAY)).state).toBe('done');
      // 24 h after the claim the key is gone: the same key runs again.
      expect(await b.claim('acct_1', 'k', 'fp-new', T0 + DAY, DAY)).toEqual({ state: 'claimed' });
      await b.release('acct_1', 'k');
      expect(await a.claim('acct_1', 'k', 'fp-3', T0 + DAY + 5, DAY)).toEqual({ state: 'claimed' });
      // release never drops a finished answer
      await a.finish('acct_1', 'k', { status: 200, body: '{"id":1}' });
      await b.release('acct_1', 'k');
      expect((await a.claim('acct_1', 'k', 'fp-3', T0 + DAY + 6, DAY)).state).toBe('done');
    } finally {
      await close();
    }
  });

  it('two claims racing on one key: exactly one wins', async () => {
    const { a, b, close } = create();
    try {
      const claims = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          Promise.resolve((i % 2 === 0 ? a : b).claim('acct', 'race', 'fp', T0, DAY)),
        ),
      );
      expect(claims.filter((c) => c.state === 'claimed')).toHaveLength(1);
    } finally {
      await close();
    }
  });

  it('refuses bad arguments with typed errors before touching storage', async () => {
    const { a, close } = create();
    try {
      expect(await refusal(() => a.claim('', 'k', 'fp', T0, DAY))).toBe('INVALID_ARGUMENT:scope');
      expect(await refusal(() => a.claim('s', 'x'.repeat(256), 'fp', T0, DAY))).toBe(
        'INVALID_ARGUMENT:key',
      );
      expect(await refusal(() => a.claim('s', 'k\u0000', 'fp', T0, DAY))).toBe(
        'INVALID_ARGUMENT:key',
      );
      expect(await refusal(() => a.claim('s', 'k', 'fp', Number.NaN, DAY))).toBe(
        'INVALID_ARGUMENT:now',
      );
      expect(await refusal(() => a.claim('s', 'k', 'fp', T0, 0))).toBe('INVALID_ARGUMENT:ttlMs');
      expect(await refusal(() => a.finish('s', 'k', { status: 42, body: '' }))).toBe(
        'INVALID_ARGUMENT:answer',
      );
    } finally {
      await close();
    }
  });
});

describe('idempotency store: postgres table, one round trip a claim', () => {
  it('prunes the expired keys of the world in the claim itself, and takes over its own', async () => {
    const world = uniqueName('idem');
    const backend = new PostgresBackend(postgresUrl(), world);
    const store = backend.idempotencyStore();
    const raw = await rawClient(postgresUrl());
    const rows = async () =>
      (
        await raw.query<{ key: string }>(
          'SELECT key FROM twinworld.idempotency WHERE world = $1 ORDER BY key',
          [world],
        )
      ).rows.map((r) => r.key);
    try {
      for (const key of ['a', 'b', 'c']) await store.claim('acct', key, 'fp', T0, DAY);
      await store.claim('acct', 'late', 'fp', T0 + DAY - 1, DAY);
      expect(await rows()).toEqual(['a', 'b', 'c', 'late']);
      const spy = vi.spyOn(pg.Client.prototype, 'query');
      let sent: number;
      try {
        // A day on: a, b and c expired. Claiming b again takes its row over; a and c go.
        expect(await store.claim('acct', 'b', 'fp-2', T0 + DAY, DAY)).toEqual({ state: 'claimed' });
        sent = spy.mock.calls.length;
      } finally {
        spy.mockRestore();
      }
      expect(sent).toBe(1);
      expect(await rows()).toEqual(['b', 'late']);
    } finally {
      await raw.end();
      await backend.close();
    }
  });
});
