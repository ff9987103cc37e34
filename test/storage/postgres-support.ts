// Helpers for tests on the throwaway PostgreSQL server: a fresh database per purpose, a superuser
// session on it, and login roles that are members of twinworld_app only (as a production app would be).
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { PostgresBackend } from '../../src/storage/postgres/index.js';
import { postgresUrl } from './postgres-url.js';

export function uniqueName(prefix: string): string {
  return `${prefix}_${randomBytes(5).toString('hex')}`;
}

/** The URL of `database` on the test server, as `user`/`password` (the superuser by default). */
export function urlFor(database: string, login?: { user: string; password: string }): string {
  const url = new URL(postgresUrl());
  url.pathname = `/${database}`;
  if (login !== undefined) {
    url.username = login.user;
    url.password = login.password;
  }
  return url.toString();
}

/** Runs SQL as the superuser on `database` (default: the server's `postgres`). */
export async function asSuperuser<T>(
  database: string,
  fn: (client: pg.Client) => Promise<T>,
): Promise<T> {
  const client = new pg.Client(urlFor(database));
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** A new, empty database; its URL as the superuser. */
export async function createDatabase(
  prefix = 'tw',
  options = '',
): Promise<{ name: string; url: string }> {
  const name = uniqueName(prefix);
  await asSuperuser('postgres', (c) => c.query(`CREATE DATABASE ${name} ${options}`));
  return { name, url: urlFor(name) };
}

/** A new database with twinworld's schema in it (migrated by opening world `world`), nothing else. */
export async function migratedDatabase(
  prefix: string,
  world = 'w',
): Promise<{ name: string; url: string }> {
  const db = await createDatabase(prefix);
  const backend = new PostgresBackend(db.url, world);
  await backend.ready();
  await backend.close();
  return db;
}

/** A SQL text[] literal of plain strings (no quotes inside), for a statement spelled out in a test. */
export const textArray = (xs: readonly string[]): string =>
  `ARRAY[${xs.map((x) => `'${x}'`).join(', ')}]::text[]`;

/**
 * A login role on the server that is a member of `roles` (by default only twinworld_app, which must
 * exist: migrate a database first), with a random password. Roles are server-wide; names are unique.
 */
export async function createLogin(
  roles: readonly string[] = ['twinworld_app'],
  prefix = 'tw_login',
): Promise<{ user: string; password: string }> {
  const user = uniqueName(prefix);
  const password = randomBytes(12).toString('hex');
  await asSuperuser('postgres', async (c) => {
    await c.query(`CREATE ROLE ${user} LOGIN PASSWORD '${password}'`);
    for (const role of roles) await c.query(`GRANT ${role} TO ${user}`);
  });
  return { user, password };
}

/** A raw session on `url` for hand-written SQL. */
export async function rawClient(url: string): Promise<pg.Client> {
  const client = new pg.Client(url);
  await client.connect();
  return client;
}
