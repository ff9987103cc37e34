// The PostgreSQL backend on a real throwaway server: the port's conformance suite, then what only
// PostgreSQL has — migrations, the advisory lock across pools, typed connection refusals, tenant
// row-level security.
import { beforeAll, describe, expect, it } from 'vitest';
import { PostgresBackend } from '../../src/storage/postgres/index.js';
import { describePortConformance } from './port-conformance.js';
import { createDatabase, uniqueName } from './postgres-support.js';

let shared: Promise<string> | undefined;
/** One database for the conformance suite; every case is a world of its own in it. */
function sharedDatabase(): Promise<string> {
  shared ??= createDatabase('conf').then((db) => db.url);
  return shared;
}

describePortConformance('postgres', async () => {
  const url = await sharedDatabase();
  const world = uniqueName('w');
  return {
    backend: await PostgresBackend.open(url, world),
    reopen: () => PostgresBackend.open(url, world),
    cleanup: async () => {},
  };
});
