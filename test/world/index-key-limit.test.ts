// Index keys are at most 1024 bytes of UTF-8 on every backend: PostgreSQL's B-tree refuses longer
// rows with an error of its own, so a write that would make one is refused first, as INVALID_WRITE
// naming the field — and the longest key allowed, beside the longest id, is kept on every backend.
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_INDEX_KEY_BYTES } from '../../src/state/indexes.js';
import { openWorld, type World } from '../../src/world/world.js';
import { backends } from '../support/backends.js';

/** Text that does not compress (PostgreSQL compresses index rows before it measures them). */
const noise = (chars: number): string => randomBytes(chars).toString('base64').slice(0, chars);

for (const backendCase of backends) {
  describe(`index keys: ${backendCase.name}`, () => {
    let world: World;
    let cleanup = (): void => {};
    afterEach(async () => {
      await world.close();
      cleanup();
    });

    it('keeps a key of the longest length, refuses one byte more, and leaves the twin as it was', async () => {
      const made = backendCase.create();
      cleanup = made.cleanup;
      world = openWorld({ root: ':memory:', backend: made.backend });
      const twin = world.twin('t');
      twin.declareIndex({ type: 'customer', name: 'byEmail', field: 'email' });
      twin.declareIndex({ type: 'customer', name: 'byTag', field: 'tags', orderBy: 'created' });
      const longest = noise(MAX_INDEX_KEY_BYTES);
      const id = '€'.repeat(256); // the longest id, 768 bytes
      await twin.applyWrite({
        operation: 'customer.create',
        subjectType: 'customer',
        subjectId: id,
        fields: { email: longest, tags: ['a'], created: 1 },
      });
      expect((await twin.lookup('customer', 'byEmail', longest)).map((r) => r.id)).toEqual([id]);

      const head = await twin.head();
      const refused = twin.applyWrite({
        operation: 'customer.create',
        subjectType: 'customer',
        subjectId: 'cus_2',
        fields: { email: `${'é'.repeat(512)}x`, tags: [] },
      });
      await expect(refused).rejects.toMatchObject({ code: 'INVALID_WRITE', path: 'fields.email' });
      await expect(refused).rejects.toThrow(/1025 bytes.*at most 1024 bytes/);
      // An ordered index's key counts with its stamps.
      await expect(
        twin.applyWrite({
          operation: 'customer.update',
          subjectType: 'customer',
          subjectId: id,
          fields: { tags: [noise(MAX_INDEX_KEY_BYTES - 10)] },
        }),
      ).rejects.toMatchObject({ code: 'INVALID_WRITE', path: 'fields.tags' });
      expect(await twin.head()).toBe(head);
      expect(await twin.get('customer', 'cus_2')).toBeUndefined();
    });
  });
}
