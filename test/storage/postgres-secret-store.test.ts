// The secret store of a world on PostgreSQL, beyond the port's conformance suite: what two hosts
// (two pools) rotating at once leave, worlds kept apart in one database, an app login's rights, and
// a world opened on the backend using it.
import { describe, expect, it } from 'vitest';
import { PostgresBackend } from '../../src/storage/postgres/index.js';
import { RealClock } from '../../src/world/clock.js';
import { World } from '../../src/world/world.js';
import {
  asSuperuser,
  createDatabase,
  createLogin,
  uniqueName,
  urlFor,
} from './postgres-support.js';

describe('PostgreSQL secret store', () => {
  it('rotations from two hosts at once are all kept, each under its own number', async () => {
    const db = await createDatabase('sec');
    const world = uniqueName('w');
    const hosts = [new PostgresBackend(db.url, world), new PostgresBackend(db.url, world)];
    try {
      await hosts[0]!.secretStore().set('ep', 'first-secret');
      const ROTATIONS = 15;
      await Promise.all(
        hosts.flatMap((host, h) =>
          Array.from({ length: ROTATIONS }, (_, i) =>
            host.secretStore().rotate('ep', `host${h}-secret${i}`, 1_000, 60_000),
          ),
        ),
      );
      const active = await hosts[1]!.secretStore().resolve('ep', 1_000);
      expect(active).toHaveLength(2 * ROTATIONS + 1);
      expect(new Set(active).size).toBe(active.length);
      expect(active.at(-1)).toBe('first-secret');
      const numbers = await asSuperuser(db.name, (c) =>
        c.query('SELECT n FROM twinworld.secrets WHERE world = $1 ORDER BY n', [world]),
      );
      expect(numbers.rows.map((r) => r.n)).toEqual(
        Array.from({ length: 2 * ROTATIONS + 1 }, (_, i) => i + 1),
      );
      // after the grace period only the newest is left
      expect(await hosts[0]!.secretStore().resolve('ep', 61_000)).toHaveLength(1);
    } finally {
      for (const host of hosts) await host.close();
    }
  });

  it('keeps worlds apart in one database, retired refs included', async () => {
    const db = await createDatabase('sec');
    const a = new PostgresBackend(db.url, 'a');
    const b = new PostgresBackend(db.url, 'b');
    try {
      await a.secretStore().set('ep', 'secret-of-a');
      expect(await b.secretStore().resolve('ep', 0)).toEqual([]);
      await a.secretStore().delete('ep');
      await b.secretStore().set('ep', 'secret-of-b');
      expect(await b.secretStore().resolve('ep', 0)).toEqual(['secret-of-b']);
      await expect(a.secretStore().set('ep', 'again')).rejects.toMatchObject({
        code: 'SECRET_RETIRED',
      });
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('an app login (member of twinworld_app only) keeps secrets; NUL in a secret is refused unechoed', async () => {
    const db = await createDatabase('sec');
    await (await PostgresBackend.open(db.url, 'w')).close();
    const login = await createLogin();
    const app = new PostgresBackend(urlFor(db.name, login), 'w');
    try {
      const store = app.secretStore();
      await store.set('ep', 'app-secret');
      await store.rotate('ep', 'app-secret-2', 0, 10);
      expect(await store.resolve('ep', 0)).toEqual(['app-secret-2', 'app-secret']);
      await store.delete('ep');
      const refused = await store.set('other', 'bad\u0000secret').catch((e: unknown) => e);
      expect(refused).toMatchObject({ code: 'INVALID_WRITE', path: 'secret' });
      expect((refused as Error).message).not.toContain('bad');
    } finally {
      await app.close();
    }
  });

  it('a world opened on the backend keeps its endpoint secrets there', async () => {
    const db = await createDatabase('sec');
    const open = () =>
      new World({
        root: 'postgres://example/db?world=w',
        backend: new PostgresBackend(db.url, 'w'),
        clock: new RealClock(),
      });
    const first = open();
    expect(first.root).toBe('postgres://example/db?world=w');
    await first.secrets.set('ep', 'kept-in-the-database');
    await first.close();
    const second = open();
    expect(await second.secrets.resolve('ep', Date.now())).toEqual(['kept-in-the-database']);
    await second.close();
  });
});
