// A view's getMany: several gets of one type in one call, answered in the order asked, as each get
// would answer (tombstones included, undefined for what was never written), on every backend, in a
// process that has cached nothing and inside a decide that staged some of them.
import { afterEach, describe, expect, it } from 'vitest';
import { skip } from '../../src/world/decision.js';
import { openWorld, type World } from '../../src/world/world.js';
import { backends } from '../support/backends.js';
import { interceptStoreWrites } from '../support/intercepted-backend.js';

for (const backendCase of backends) {
  describe(`getMany: ${backendCase.name}`, () => {
    const open: World[] = [];
    let cleanup = (): void => {};
    afterEach(async () => {
      for (const w of open.splice(0)) await w.close();
      cleanup();
    });

    it('answers in order like get, cold, warm and over staged writes', async () => {
      const made = backendCase.create();
      cleanup = made.cleanup;
      const writer = openWorld({ root: ':memory:', backend: made.backend });
      open.push(writer);
      await writer.twin('t').applyAtomic(() => [
        ...['a', 'b', 'c'].map((id, i) => ({
          operation: 'item.create',
          subjectType: 'item',
          subjectId: id,
          fields: { i },
        })),
        { operation: 'item.delete', subjectType: 'item', subjectId: 'b', delete: true },
      ]);
      const ids = ['c', 'nope', 'b', 'a', 'c'];
      const shape = (rows: readonly ({ id: string; deleted: boolean } | undefined)[]) =>
        rows.map((r) => (r === undefined ? null : `${r.id}${r.deleted ? ' (deleted)' : ''}`));
      const expected = ['c', null, 'b (deleted)', 'a', 'c'];

      // Another process, nothing cached: each id read from the store once, though the first get
      // asks for an id whose prefetch is still on its way.
      let gets = 0;
      const reader = openWorld({
        root: ':memory:',
        backend: interceptStoreWrites(made.reopen(), {
          read: (m) => void (m === 'getResource' && gets++),
        }),
      });
      if (reader !== writer) open.push(reader);
      const twin = reader.twin('t');
      const cold = await twin.read((view) => view.getMany!('item', ids));
      expect(shape(cold)).toEqual(expected);
      expect(cold).toEqual(await Promise.all(ids.map((id) => twin.get('item', id))));
      expect(gets).toBe(new Set(ids).size);
      const warm = await twin.read((view) => view.getMany!('item', ids));
      expect(shape(warm)).toEqual(expected);

      // In a group, a decide reads what the one before it staged.
      const [, staged] = await Promise.all([
        twin.applyAtomic(() => ({
          operation: 'item.create',
          subjectType: 'item',
          subjectId: 'nope',
          fields: { i: 9 },
        })),
        twin.applyAtomic((view) => skip(shape(view.getMany!('item', ids)))),
      ]);
      expect(staged.result).toEqual(['c', 'nope', 'b (deleted)', 'a', 'c']);
      const after = await twin.read((view) => view.getMany!('item', ids));
      expect(shape(after)).toEqual(['c', 'nope', 'b (deleted)', 'a', 'c']);
    });
  });
}
