// Group commit in the kernel: atomic actions on one twin that wait in a process share one section.
// Each caller gets its own result or its own refusal, a refused member leaves the others committed,
// the log stays dense and replays to the live state — on every backend.
import { afterEach, describe, expect, it } from 'vitest';
import type { StorageBackend, TwinStore } from '../../src/storage/port.js';
import { VirtualClock } from '../../src/world/clock.js';
import { commit, skip } from '../../src/world/decision.js';
import { replayLines } from '../../src/world/replay.js';
import { World } from '../../src/world/world.js';
import type { ReadView } from '../../src/state/read-view.js';
import { backends } from '../support/backends.js';

/** The backend as it is, counting the sections (transactions) its twins run. */
function counting(backend: StorageBackend): { backend: StorageBackend; sections: () => number } {
  let sections = 0;
  const wrap = (store: TwinStore): TwinStore =>
    new Proxy(store, {
      get(target, key, receiver) {
        if (key !== 'transact') return Reflect.get(target, key, receiver) as unknown;
        return ((section, scope) => {
          if (scope?.readOnly !== true) sections++;
          return target.transact(section, scope);
        }) satisfies TwinStore['transact'];
      },
    });
  const proxy = new Proxy(backend, {
    get(target, key, receiver) {
      if (key !== 'openTwin') return Reflect.get(target, key, receiver) as unknown;
      return async (name: string) => wrap(await target.openTwin(name));
    },
  });
  return { backend: proxy, sections: () => sections };
}

const bump = (id: string) => (view: ReadView) => {
  const n = Number(view.get('counter', id)?.fields.n ?? 0) + 1;
  return commit(
    [{ operation: 'counter.bump', subjectType: 'counter', subjectId: id, fields: { n } }],
    n,
  );
};

for (const backendCase of backends) {
  describe(`group commit: ${backendCase.name}`, () => {
    let cleanup = (): void => {};
    let world: World;
    let sections: () => number = () => 0;
    const open = (): World => {
      const made = backendCase.create();
      cleanup = made.cleanup;
      const counted = counting(made.backend);
      sections = counted.sections;
      world = new World({
        root: ':memory:',
        backend: counted.backend,
        clock: new VirtualClock('2026-03-01T00:00:00Z'),
        seed: 'group',
      });
      return world;
    };
    afterEach(async () => {
      await world.close();
      cleanup();
    });

    it('concurrent callers each get their own result, in arrival order, in fewer sections than callers', async () => {
      const twin = open().twin('t');
      await twin.applyWrite({ operation: 'counter.bump', subjectType: 'counter', subjectId: 'z' });
      const before = sections();
      const ids = ['a', 'a', 'b', 'a', 'b', 'c', 'a', 'a', 'c', 'b', 'a', 'a'];
      const results = await Promise.all(ids.map((id) => twin.applyAtomic(bump(id))));
      expect(results.map((r) => r.result)).toEqual([1, 2, 1, 3, 2, 1, 4, 5, 2, 3, 6, 7]);
      // each caller's entries are its own, with the seq its place in arrival order gives it
      expect(results.map((r) => r.entries.map((e) => e.seq))).toEqual(ids.map((_, i) => [i + 2]));
      expect(results.every((r) => !r.skipped)).toBe(true);
      // callers of one burst share a section; those arriving while it runs share the next
      expect(sections() - before).toBeLessThan(ids.length);
      expect(sections() - before).toBeGreaterThanOrEqual(1);
      const entries = await twin.entries();
      expect(entries.map((e) => e.seq)).toEqual(entries.map((_, i) => i + 1));
      expect((await twin.get('counter', 'a'))!.fields.n).toBe(7);
      expect(await twin.hash()).toBe((await replayLines(twin.exportLines())).hash);
    });

    it('one refused action in a group leaves the others committed; each refusal is its own', async () => {
      const twin = open().twin('t');
      await twin.applyWrite({ operation: 'counter.bump', subjectType: 'counter', subjectId: 'z' });
      const before = sections();
      const outcomes = await Promise.allSettled([
        twin.applyAtomic(bump('a')),
        // throws after reading what the one before staged: its reads and writes leave no trace
        twin.applyAtomic((view) => {
          view.get('counter', 'a');
          throw new Error('decide failed');
        }),
        // a write the kernel refuses, after a valid one in the same decide: neither is appended
        twin.applyAtomic(() => [
          {
            operation: 'counter.bump',
            subjectType: 'counter',
            subjectId: 'ghost',
            fields: { n: 9 },
          },
          { operation: 'bad op!', subjectType: 'counter', subjectId: 'x' },
        ]),
        twin.applyAtomic(bump('a')),
        // nesting is refused for this member alone, even when its decide swallows the refusal
        twin.applyAtomic((view) => {
          try {
            void twin.applyAtomic(() => skip());
          } catch {
            /* swallowed on purpose */
          }
          return bump('b')(view);
        }),
        twin.applyAtomic(() => skip('nothing')),
        twin.applyAtomic(bump('b')),
      ]);
      expect(outcomes.map((o) => o.status)).toEqual([
        'fulfilled',
        'rejected',
        'rejected',
        'fulfilled',
        'rejected',
        'fulfilled',
        'fulfilled',
      ]);
      const value = (i: number) =>
        (
          outcomes[i] as unknown as PromiseFulfilledResult<{
            result: unknown;
            entries: { seq: number }[];
          }>
        ).value;
      const reason = (i: number) => (outcomes[i] as PromiseRejectedResult).reason as Error;
      expect(reason(1).message).toBe('decide failed');
      expect(reason(2)).toMatchObject({ code: 'INVALID_WRITE' });
      expect(reason(4)).toMatchObject({ code: 'INVALID_ARGUMENT' });
      expect(reason(4).message).toContain('applyAtomic was called from inside a decide');
      expect(value(0).result).toBe(1);
      expect(value(3).result).toBe(2);
      expect(value(5)).toMatchObject({ result: 'nothing', entries: [] });
      // b's first bump was refused with its member: the next one starts from nothing
      expect(value(6).result).toBe(1);
      // dense: the refused members took no seq
      expect([value(0), value(3), value(6)].map((v) => v.entries.map((e) => e.seq))).toEqual([
        [2],
        [3],
        [4],
      ]);
      // submitted back to back, all of them shared one section, the refused members too
      expect(sections() - before).toBe(1);
      expect(await twin.head()).toBe(4);
      expect(await twin.get('counter', 'ghost')).toBeUndefined();
      expect(await twin.get('counter', 'x')).toBeUndefined();
      expect(await twin.hash()).toBe((await replayLines(twin.exportLines())).hash);
      // what the group committed is what the next action reads
      expect((await twin.applyAtomic(bump('a'))).result).toBe(3);
    });

    if (backendCase.name === 'postgres') {
      it('a group whose section the store refuses runs each member alone: only the bad one fails', async () => {
        const twin = open().twin('t');
        await twin.applyWrite({
          operation: 'counter.bump',
          subjectType: 'counter',
          subjectId: 'z',
        });
        const scope = { tenant: 'A' };
        const own = (id: string) => (view: ReadView) => {
          const n = Number(view.get('counter', id)?.fields.n ?? 0) + 1;
          return commit(
            [
              {
                operation: 'counter.bump',
                subjectType: 'counter',
                subjectId: id,
                fields: { n, tenantId: 'A' },
              },
            ],
            n,
          );
        };
        const outcomes = await Promise.allSettled([
          twin.applyAtomic(own('a'), scope),
          twin.applyAtomic(own('a'), scope),
          // the store refuses a row of tenant B in a section scoped to A, for the whole section
          twin.applyAtomic(
            () => ({
              operation: 'counter.bump',
              subjectType: 'counter',
              subjectId: 'stolen',
              fields: { tenantId: 'B' },
            }),
            scope,
          ),
          twin.applyAtomic(own('a'), scope),
        ]);
        expect(outcomes.map((o) => o.status)).toEqual([
          'fulfilled',
          'fulfilled',
          'rejected',
          'fulfilled',
        ]);
        expect((outcomes[2] as PromiseRejectedResult).reason).toMatchObject({
          code: 'TENANT_MISMATCH',
        });
        expect(await twin.head()).toBe(4);
        const entries = await twin.entries();
        expect(entries.map((e) => e.seq)).toEqual([1, 2, 3, 4]);
        expect(await twin.hash()).toBe((await replayLines(twin.exportLines())).hash);
      });
    }
  });
}
