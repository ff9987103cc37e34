// Child process for the cross-process lock test: N read-increment-write actions on one counter.
import { openWorld } from '../../src/world/world.js';
import { commit } from '../../src/world/decision.js';

const [root, countText, label] = process.argv.slice(2);
const world = openWorld({ root: root!, sqlite: { busyTimeoutMs: 60_000 } });
const twin = world.twin('counter');
for (let i = 0; i < Number(countText); i++) {
  await twin.applyAtomic((view) => {
    const current = view.get('counter', 'c1');
    const value = typeof current?.fields.value === 'number' ? current.fields.value : 0;
    return commit({ operation: 'counter.increment', subjectType: 'counter', subjectId: 'c1', fields: { value: value + 1, by: label ?? 'worker' } }, value + 1);
  });
}
await world.close();
