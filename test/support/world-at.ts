// Opening a world from a store spec, as `--store` reads it (a folder, sqlite:DIR, or
// postgres://…?world=NAME): how a test and the child processes it starts open the same world on
// any durable backend (`homes` in ./backends.ts gives a fresh one of each). No vitest import: child
// processes load it.
import { parseStore } from '../../src/cli/store.js';
import { PostgresBackend } from '../../src/storage/postgres/index.js';
import { openWorld, type World, type WorldOptions } from '../../src/world/world.js';

/** A world at `spec`; SQLite waits long for a busy lock and PostgreSQL for a held twin, as racing children do. */
export function openWorldAt(
  spec: string,
  options: Omit<WorldOptions, 'root' | 'backend' | 'sqlite'> = {},
): World {
  const target = parseStore(spec);
  if (target.kind === 'sqlite')
    return openWorld({ ...options, root: target.root, sqlite: { busyTimeoutMs: 60_000 } });
  return openWorld({
    ...options,
    root: target.label,
    backend: new PostgresBackend(target.url, target.world, { lockTimeoutMs: 120_000 }),
  });
}
