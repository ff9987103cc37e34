// Child process for the cross-process lock test: N read-increment-write actions on one counter,
// in a SQLite root or, given postgres://URL#WORLD, a world on a shared PostgreSQL database.
import { PostgresBackend } from '../../src/storage/postgres/index.js';
import { commit } from '../../src/world/decision.js';
import { openWorld } from '../../src/world/world.js';

const [where, countText, label] = process.argv.slice(2);
const pg = where!.startsWith('postgres://') ? where!.split('#') : undefined;
const world =
  pg === undefined
    ? openWorld({ root: where!, sqlite: { busyTimeoutMs: 60_000 } })
    : openWorld({
        root: ':memory:',
        backend: new PostgresBackend(pg[0]!, pg[1]!, { lockTimeoutMs: 120_000 }),
      });
const twin = world.twin('counter');
for (let i = 0; i < Number(countText); i++) {
  await twin.applyAtomic((view) => {
    const current = view.get('counter', 'c1');
    const value = typeof current?.fields.value === 'number' ? current.fields.value : 0;
    return commit(
      {
        operation: 'counter.increment',
        subjectType: 'counter',
        subjectId: 'c1',
        fields: { value: value + 1, by: label ?? 'worker' },
      },
      value + 1,
    );
  });
}
await world.close();
