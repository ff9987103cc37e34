// applyAtomic: skip, several writes as one commit, refusals, commit hooks — on every backend.
import { afterEach, describe, expect, it } from 'vitest';
import { isTwinError } from '../../src/errors.js';
import { commit, skip } from '../../src/world/decision.js';
import { VirtualClock } from '../../src/world/clock.js';
import { World } from '../../src/world/world.js';
import { backends } from '../support/backends.js';

for (const backendCase of backends) {
  describe(`atomic actions: ${backendCase.name}`, () => {
    let cleanup = (): void => {};
    let world: World;
    const open = (): World => {
      const made = backendCase.create();
      cleanup = made.cleanup;
      world = new World({
        root: ':memory:',
        backend: made.backend,
        clock: new VirtualClock('2026-03-01T00:00:00Z'),
        seed: 'atomic',
      });
      return world;
    };
    afterEach(async () => {
      await world.close();
      cleanup();
    });

    it('skip appends nothing and returns the result', async () => {
      const twin = open().twin('t');
      const out = await twin.applyAtomic((view) =>
        view.get('x', '1')
          ? commit({ operation: 'x.touch', subjectType: 'x', subjectId: '1' })
          : skip('absent'),
      );
      expect(out).toEqual({ result: 'absent', entries: [], skipped: true });
      expect(await twin.head()).toBe(0);
    });

    it('commits several writes together with consecutive seqs, each folded on the one before', async () => {
      const twin = open().twin('t');
      const out = await twin.applyAtomic(() =>
        commit(
          [
            {
              operation: 'order.create',
              subjectType: 'order',
              subjectId: 'o1',
              fields: { status: 'open', total: 5 },
            },
            {
              operation: 'order.pay',
              subjectType: 'order',
              subjectId: 'o1',
              fields: { status: 'paid' },
            },
            {
              operation: 'receipt.create',
              subjectType: 'receipt',
              subjectId: 'r1',
              fields: { order: 'o1' },
            },
          ],
          'ok',
        ),
      );
      expect(out.result).toBe('ok');
      expect(out.entries.map((e) => e.seq)).toEqual([1, 2, 3]);
      expect(await twin.get('order', 'o1')).toMatchObject({
        version: 2,
        deleted: false,
        fields: { status: 'paid', total: 5 },
      });
      expect(out.entries[0]?.occurredAt).toBe('2026-03-01T00:00:00.000Z');
    });

    it('a throwing decide or a bad second write appends nothing', async () => {
      const twin = open().twin('t');
      await expect(
        twin.applyAtomic(() => {
          throw new Error('business rule');
        }),
      ).rejects.toThrow('business rule');
      await expect(
        twin.applyAtomic(() => [
          { operation: 'a.b', subjectType: 'a', subjectId: '1' },
          { operation: 'a.b', subjectType: 'a' } as never,
        ]),
      ).rejects.toThrow(/subjectId/);
      expect(await twin.head()).toBe(0);
      expect(await twin.get('a', '1')).toBeUndefined();
      // and the twin still works afterwards
      expect(
        (await twin.applyWrite({ operation: 'a.b', subjectType: 'a', subjectId: '1' })).seq,
      ).toBe(1);
    });

    it('refuses an async decide and a nested action', async () => {
      const twin = open().twin('t');
      try {
        await twin.applyAtomic((async () => [
          { operation: 'a.b', subjectType: 'a', subjectId: '1' },
        ]) as never);
        expect.unreachable();
      } catch (error) {
        expect(isTwinError(error, 'ASYNC_DECIDE')).toBe(true);
      }
      // A decide cannot await, so a nested call is a promise it drops: the outer action must fail,
      // and the nested one must be refused rather than left to run after it.
      const nested: unknown[] = [];
      await expect(
        twin.applyAtomic(() => {
          void twin
            .applyWrite({ operation: 'a.b', subjectType: 'a', subjectId: '1' })
            .catch((error: unknown) => nested.push(error));
          return skip();
        }),
      ).rejects.toThrow(/inside a decide/);
      await new Promise((resolve) => setImmediate(resolve));
      for (const error of nested)
        expect(error).toMatchObject({ message: expect.stringMatching(/inside a decide/) });
      expect(await twin.head()).toBe(0);
    });

    it('folds deletes and projections; tombstones stay readable, lists show only live resources', async () => {
      const twin = open().twin('t');
      await twin.applyWrite({
        operation: 'invoice.finalize',
        subjectType: 'invoice',
        subjectId: 'in_1',
        fields: { status: 'open' },
        projection: {
          creates: [
            { type: 'line', id: 'l1', fields: { amount: 1 } },
            { type: 'line', id: 'l2', fields: { amount: 2 } },
          ],
          updates: [{ type: 'customer', id: 'c1', fields: { balance: 3 } }],
        },
      });
      await twin.applyWrite({
        operation: 'line.void',
        subjectType: 'line',
        subjectId: 'l1',
        delete: true,
        projection: { deletes: [{ type: 'line', id: 'l2' }] },
      });
      expect(await twin.list('line')).toEqual([]);
      expect(await twin.get('line', 'l1')).toMatchObject({
        deleted: true,
        version: 2,
        fields: { amount: 1 },
      });
      expect((await twin.get('customer', 'c1'))?.fields).toEqual({ balance: 3 });
      await twin.applyWrite({
        operation: 'line.create',
        subjectType: 'line',
        subjectId: 'l1',
        fields: { amount: 9 },
      });
      expect(await twin.get('line', 'l1')).toMatchObject({
        deleted: false,
        version: 3,
        fields: { amount: 9 },
      });
      expect((await twin.entriesFor('line', 'l1')).map((e) => e.seq)).toEqual([2, 3]);
    });

    it('resources are frozen and unchanged parts are shared between versions', async () => {
      const twin = open().twin('t');
      await twin.applyWrite({
        operation: 'c.create',
        subjectType: 'c',
        subjectId: '1',
        fields: { address: { city: 'Oslo' }, name: 'A' },
      });
      const before = (await twin.get('c', '1'))!;
      await twin.applyWrite({
        operation: 'c.update',
        subjectType: 'c',
        subjectId: '1',
        fields: { name: 'B' },
      });
      const after = (await twin.get('c', '1'))!;
      expect(Object.isFrozen(after)).toBe(true);
      expect(Object.isFrozen(after.fields.address)).toBe(true);
      expect(after.fields.address).toBe(before.fields.address);
      expect(before.fields.name).toBe('A');
    });

    it('declared indexes answer lookups, follow updates and are built for existing resources', async () => {
      const twin = open().twin('t');
      await twin.applyWrite({
        operation: 'e.create',
        subjectType: 'endpoint',
        subjectId: 'we_1',
        fields: { events: ['*'] },
      });
      twin.declareIndex({ type: 'endpoint', name: 'byEvent', field: 'events' });
      await twin.applyWrite({
        operation: 'e.create',
        subjectType: 'endpoint',
        subjectId: 'we_2',
        fields: { events: ['a.b', 'a.*'] },
      });
      expect((await twin.lookup('endpoint', 'byEvent', '*')).map((r) => r.id)).toEqual(['we_1']);
      expect((await twin.lookup('endpoint', 'byEvent', 'a.*')).map((r) => r.id)).toEqual(['we_2']);
      await twin.applyWrite({
        operation: 'e.update',
        subjectType: 'endpoint',
        subjectId: 'we_2',
        fields: { events: ['c'] },
      });
      expect(await twin.lookup('endpoint', 'byEvent', 'a.*')).toEqual([]);
      await twin.applyWrite({
        operation: 'e.delete',
        subjectType: 'endpoint',
        subjectId: 'we_1',
        delete: true,
      });
      expect(await twin.lookup('endpoint', 'byEvent', '*')).toEqual([]);
      await expect(twin.lookup('endpoint', 'byUrl', 'x')).rejects.toThrow(/no index "byUrl"/);
    });

    it('commit hooks add writes to the same commit and run afterCommit once it is durable', async () => {
      const twin = open().twin('t');
      const seen: number[][] = [];
      twin.use({
        name: 'outbox',
        withinCommit: (entries) =>
          entries
            .filter((e) => e.subjectType === 'customer')
            .map((e) => ({
              operation: 'record.create',
              subjectType: 'record',
              subjectId: `r_${e.seq}`,
              fields: { of: e.seq },
            })),
        afterCommit: (entries) => seen.push(entries.map((e) => e.seq)),
      });
      await twin.applyWrite({
        operation: 'customer.create',
        subjectType: 'customer',
        subjectId: 'c1',
      });
      expect((await twin.get('record', 'r_1'))?.fields).toEqual({ of: 1 });
      expect(seen).toEqual([[1, 2]]);
      twin.use({
        name: 'failing',
        withinCommit: () => {
          throw new Error('hook broke');
        },
      });
      await expect(
        twin.applyWrite({ operation: 'customer.create', subjectType: 'customer', subjectId: 'c2' }),
      ).rejects.toThrow('hook broke');
      expect(await twin.head()).toBe(2);
      expect(await twin.get('customer', 'c2')).toBeUndefined();
    });
  });
}
