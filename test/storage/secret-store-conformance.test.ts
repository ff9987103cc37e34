// One conformance suite for the SecretStore port, run against every implementation: memory, the
// root's SQLite file, a world's table on PostgreSQL, and a store with a vault resolver in front
// that answers nothing itself.
import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { isTwinError } from '../../src/errors.js';
import {
  MemorySecretStore,
  ResolvingSecretStore,
  type SecretStore,
} from '../../src/storage/secret-store.js';
import { SqliteSecretStore } from '../../src/storage/sqlite/sqlite-secret-store.js';
import { PostgresBackend } from '../../src/storage/postgres/index.js';
import { tempDir } from '../support/backends.js';
import { postgresUrl } from './postgres-url.js';
import { uniqueName } from './postgres-support.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

const stores: { name: string; create: () => SecretStore }[] = [
  { name: 'memory', create: () => new MemorySecretStore() },
  {
    name: 'sqlite file',
    create: () => {
      const dir = tempDir('twinworld-secrets-');
      dirs.push(dir);
      return new SqliteSecretStore(dir);
    },
  },
  {
    // The table of a world on PostgreSQL; closing the store here closes the backend that owns its pool.
    name: 'postgres table',
    create: () => {
      const backend = new PostgresBackend(postgresUrl(), uniqueName('secrets'));
      const store = backend.secretStore();
      return {
        set: (ref, secret) => store.set(ref, secret),
        rotate: (ref, secret, now, graceMs) => store.rotate(ref, secret, now, graceMs),
        resolve: (ref, now) => store.resolve(ref, now),
        delete: (ref) => store.delete(ref),
        close: () => backend.close(),
      };
    },
  },
  {
    name: 'resolver in front (answers undefined)',
    create: () => new ResolvingSecretStore(new MemorySecretStore(), () => undefined),
  },
  {
    name: 'async resolver in front (answers undefined)',
    create: () => new ResolvingSecretStore(new MemorySecretStore(), async () => undefined),
  },
];

const A = 'whsec_first-secret';
const B = 'whsec_second-secret';
const C = 'whsec_third-secret';

async function code(fn: () => unknown): Promise<string> {
  try {
    await fn();
  } catch (error) {
    if (isTwinError(error)) return error.code;
    throw error;
  }
  return 'ACCEPTED';
}

for (const { name, create } of stores) {
  describe(`SecretStore conformance: ${name}`, () => {
    it('answers nothing for an unknown ref, the one secret after set, the newest after another set', async () => {
      const store = create();
      expect(await store.resolve('ep_1', 0)).toEqual([]);
      await store.set('ep_1', A);
      expect(await store.resolve('ep_1', 0)).toEqual([A]);
      await store.set('ep_1', B);
      expect(await store.resolve('ep_1', 0)).toEqual([B]);
      expect(await store.resolve('ep_2', 0)).toEqual([]);
      await store.close?.();
    });

    it('rotate keeps the old secrets until the grace period ends, newest first', async () => {
      const store = create();
      await store.set('ep', A);
      await store.rotate('ep', B, 1_000, 500);
      expect(await store.resolve('ep', 1_000)).toEqual([B, A]);
      expect(await store.resolve('ep', 1_499)).toEqual([B, A]);
      expect(await store.resolve('ep', 1_500)).toEqual([B]);
      // a second rotation never lengthens an expiry already set, and drops what already expired
      await store.rotate('ep', C, 1_200, 10_000);
      expect(await store.resolve('ep', 1_200)).toEqual([C, B, A]);
      expect(await store.resolve('ep', 1_600)).toEqual([C, B]);
      expect(await store.resolve('ep', 11_200)).toEqual([C]);
      await store.rotate('fresh', A, 0, 100);
      expect(await store.resolve('fresh', 0)).toEqual([A]);
      await store.close?.();
    });

    it('delete removes the secrets and retires the ref for good: set and rotate are refused after it', async () => {
      const store = create();
      await store.set('ep', A);
      await store.delete('ep');
      expect(await store.resolve('ep', 0)).toEqual([]);
      expect(await code(() => store.set('ep', B))).toBe('SECRET_RETIRED');
      expect(await code(() => store.rotate('ep', B, 0, 0))).toBe('SECRET_RETIRED');
      expect(await store.resolve('ep', 0)).toEqual([]);
      // deleting a ref never set retires it too
      await store.delete('never');
      expect(await code(() => store.set('never', A))).toBe('SECRET_RETIRED');
      await store.close?.();
    });

    it('refuses bad refs, secrets and rotation arguments without echoing the secret', async () => {
      const store = create();
      expect(await code(() => store.set('', A))).toBe('INVALID_ARGUMENT');
      expect(await code(() => store.set('x'.repeat(513), A))).toBe('INVALID_ARGUMENT');
      expect(await code(() => store.set('ep', '  '))).toBe('INVALID_ARGUMENT');
      expect(await code(() => store.set('ep', 42 as unknown as string))).toBe('INVALID_ARGUMENT');
      expect(await code(() => store.rotate('ep', A, 0, -1))).toBe('INVALID_ARGUMENT');
      expect(await code(() => store.rotate('ep', A, Number.NaN, 1))).toBe('INVALID_ARGUMENT');
      try {
        await store.set('ep', `whsec_${'s'.repeat(5000)}`);
        expect.unreachable();
      } catch (error) {
        expect((error as Error).message).not.toContain('sss');
      }
      expect(await store.resolve('ep', 0)).toEqual([]);
      await store.close?.();
    });

    it('resolve refuses a ref that is no text and a now that is no time, naming which', async () => {
      const store = create();
      await store.rotate('ep', A, 0, 0);
      await store.rotate('ep', B, 0, 1_000);
      const loose = store as unknown as { resolve: (...args: unknown[]) => unknown };
      for (const [args, path] of [
        [[undefined, 0], 'ref'],
        [[null, 0], 'ref'],
        [[7, 0], 'ref'],
        [['ep'], 'now'],
        [['ep', Number.NaN], 'now'],
        [['ep', '0'], 'now'],
      ] as const) {
        let error: unknown;
        try {
          await loose.resolve(...args);
        } catch (caught) {
          error = caught;
        }
        expect(error).toMatchObject({ code: 'INVALID_ARGUMENT', path });
      }
      expect(await store.resolve('ep', 0)).toEqual([B, A]);
      await store.close?.();
    });

    it('keeps refs apart, with any characters in them', async () => {
      const store = create();
      const refs = ['stripe/we_1', 'github/repository_hook/1', 'quote\'and"slash\\', 'ünï/😀'];
      for (const [i, ref] of refs.entries()) await store.set(ref, `secret-${i}`);
      for (const [i, ref] of refs.entries())
        expect(await store.resolve(ref, 0)).toEqual([`secret-${i}`]);
      await store.close?.();
    });
  });
}
