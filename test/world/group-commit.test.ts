// Group commit: decisions of one event-loop turn share one atomic action, each sees the ones
// before it, and one bad decision (or one refused write) never takes its neighbours down.
import { describe, expect, it } from 'vitest';
import { commit, skip } from '../../src/world/decision.js';
import { GroupCommit } from '../../src/world/group-commit.js';
import { openWorld } from '../../src/world/world.js';
import { MemoryBackend } from '../../src/storage/memory/memory-backend.js';
import { interceptStoreWrites } from '../support/intercepted-backend.js';

const bump =
  (id: string) =>
  (view: { get: (t: string, i: string) => { fields: Record<string, unknown> } | undefined }) => {
    const n = Number(view.get('counter', id)?.fields.n ?? 0) + 1;
    return commit(
      [{ operation: 'counter.bump', subjectType: 'counter', subjectId: id, fields: { n } }],
      n,
    );
  };

describe('GroupCommit', () => {
  it('commits a turn’s decisions together, each seeing the writes staged before it', async () => {
    const world = openWorld({ root: ':memory:' });
    const twin = world.twin('t');
    const commits = new GroupCommit(twin, () => '2026-01-01T00:00:00.000Z');
    const results = await Promise.all([
      commits.submit(bump('a')),
      commits.submit(bump('a')),
      commits.submit(bump('b')),
      commits.submit(bump('a')),
    ]);
    expect(results).toEqual([1, 2, 1, 3]);
    expect((await twin.get('counter', 'a'))!.fields.n).toBe(3);
    expect((await twin.entries()).map((e) => e.seq)).toEqual([1, 2, 3, 4]);
    // a later turn is a later commit, reading the committed state
    expect(await commits.submit(bump('a'))).toBe(4);
    await world.close();
  });

  it('a decision that throws rejects alone; a refused write is retried alone so its neighbours commit', async () => {
    const world = openWorld({ root: ':memory:' });
    const twin = world.twin('t');
    const commits = new GroupCommit(twin, () => '2026-01-01T00:00:00.000Z');
    const outcomes = await Promise.allSettled([
      commits.submit(bump('a')),
      commits.submit(() => {
        throw new Error('decide failed');
      }),
      commits.submit(() =>
        commit([{ operation: 'bad op!', subjectType: 'counter', subjectId: 'x' }], 'never'),
      ),
      commits.submit(bump('a')),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual([
      'fulfilled',
      'rejected',
      'rejected',
      'fulfilled',
    ]);
    expect((outcomes[2] as PromiseRejectedResult).reason).toMatchObject({ code: 'INVALID_WRITE' });
    expect((await twin.get('counter', 'a'))!.fields.n).toBe(2);
    expect(await twin.get('counter', 'x')).toBeUndefined();
    await world.close();
  });

  it('takes every form of the world’s Decision: commit, skip, a write, an array of writes', async () => {
    const world = openWorld({ root: ':memory:' });
    const twin = world.twin('t');
    const commits = new GroupCommit(twin, () => '2026-01-01T00:00:00.000Z');
    const write = (id: string) => ({
      operation: 'counter.set',
      subjectType: 'counter',
      subjectId: id,
      fields: { n: 1 },
    });
    const results = await Promise.all([
      commits.submit(bump('a')),
      commits.submit(() => skip('nothing to do')),
      commits.submit(() => write('b')),
      commits.submit(() => [write('c'), write('d')]),
    ]);
    expect(results).toEqual([1, 'nothing to do', undefined, undefined]);
    expect((await twin.entries()).map((e) => e.subjectId)).toEqual(['a', 'b', 'c', 'd']);
    // a decide answering something that is no decision is refused alone
    const bad = commits.submit(() => ({ nonsense: true }) as never);
    await expect(bad).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', path: 'decide' });
    await world.close();
  });

  it('a refused member never lets a later turn decide before its neighbours (slow store)', async () => {
    // Sections start 5 ms late, as a networked store's would.
    const backend = interceptStoreWrites(new MemoryBackend(), {
      beforeSection: () => new Promise((r) => setTimeout(r, 5)),
    });
    const world = openWorld({ root: ':memory:', backend });
    const twin = world.twin('t');
    const commits = new GroupCommit(twin, () => '2026-01-01T00:00:00.000Z');
    const first = Promise.allSettled([
      commits.submit(bump('a')),
      commits.submit(() =>
        commit([{ operation: 'bad op!', subjectType: 'counter', subjectId: 'x' }], 'never'),
      ),
      commits.submit(bump('a')),
    ]);
    // The next turn submits while the first turn's section still waits for the store.
    await new Promise((r) => setImmediate(r));
    const later = commits.submit(bump('a'));
    const outcomes = await first;
    expect(outcomes.map((o) => (o.status === 'fulfilled' ? o.value : 'refused'))).toEqual([
      1,
      'refused',
      2,
    ]);
    expect(await later).toBe(3);
    expect((await twin.entries()).map((e) => e.fields?.n)).toEqual([1, 2, 3]);
    await world.close();
  });
});
