// A counter twin opened from several hosts of one PostgreSQL world: each host is its own world with
// its own pool, as separate processes would be. The decide reads what it writes, so a stale view
// shows as a wrong count.
import { PostgresBackend } from '../../src/storage/postgres/index.js';
import type { ReadView } from '../../src/state/read-view.js';
import { commit } from '../../src/world/decision.js';
import type { Twin } from '../../src/world/twin.js';
import { openWorld, type World } from '../../src/world/world.js';

export function increment(view: ReadView) {
  const value = Number(view.get('counter', 'c')?.fields.value ?? 0) + 1;
  return commit(
    { operation: 'counter.set', subjectType: 'counter', subjectId: 'c', fields: { value } },
    value,
  );
}

/** Opens one more host of world `name` at `url`; the caller closes every world in `worlds`. */
export function counterHost(url: string, name: string, worlds: World[]): Twin {
  const world = openWorld({
    root: `postgres://test/${name}`,
    backend: new PostgresBackend(url, name),
  });
  worlds.push(world);
  return world.twin('counter');
}
