// One round trip when nothing moved (issue 29): once a twin's process has seen no other writer for
// a while, a write section whose decide needs nothing uncached is sent as one multi-statement —
// BEGIN, the lock, a condition that the head (and the declared indexes) did not move, the writes,
// COMMIT. When another host appended meanwhile the condition fails, nothing is written, and the
// section runs again the ordinary way: the decide sees the other host's write and the log stays dense.
import pg from 'pg';
import { afterAll, describe, expect, it, vi } from 'vitest';
import type { ReadView } from '../../src/state/read-view.js';
import { commit, skip } from '../../src/world/decision.js';
import type { World } from '../../src/world/world.js';
import { counterHost, increment } from './postgres-counter-hosts.js';
import { createDatabase, uniqueName } from './postgres-support.js';

const worlds: World[] = [];
afterAll(async () => {
  for (const w of worlds) await w.close();
});

describe('PostgreSQL: a write section when nothing moved', () => {
  it('is one round trip; after another host appended, it runs again and decides on the new state', async () => {
    const db = await createDatabase('ort');
    const name = uniqueName('w');
    const host = () => counterHost(db.url, name, worlds);
    const a = host();
    const b = host();
    for (let i = 1; i <= 4; i++)
      expect((await a.applyAtomic((view) => increment(view))).result).toBe(i);
    // b opens its store in the background (migration check, twin row); on a slow machine that can
    // still be running below, and its queries are not a's section
    expect((await b.get('counter', 'c'))?.fields.value).toBe(4);
    const spy = vi.spyOn(pg.Client.prototype, 'query');
    // round trips of sections (a pooled session's one-time setup is not one of them)
    const queries = {
      count: () =>
        spy.mock.calls.filter((c) => !String(c[0] as unknown).startsWith('SET ROLE')).length,
      mockClear: () => spy.mockClear(),
    };
    try {
      expect((await a.applyAtomic((view) => increment(view))).result).toBe(5);
      expect(queries.count()).toBe(1);
      // a skip rests on the same view: it is checked in the same one round trip
      queries.mockClear();
      expect((await a.applyAtomic(() => skip('nothing'))).result).toBe('nothing');
      expect(queries.count()).toBe(1);
    } finally {
      spy.mockRestore();
    }
    // another host moves the counter; a's cached view (5) is stale
    expect((await b.applyAtomic((view) => increment(view))).result).toBe(6);
    expect((await a.applyAtomic((view) => increment(view))).result).toBe(7);
    const entries = await a.entries();
    expect(entries.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(entries.map((e) => e.fields?.value)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect((await b.get('counter', 'c'))?.fields.value).toBe(7);
  });

  it('stays one round trip after the process declares an index itself', async () => {
    const db = await createDatabase('ort');
    const a = counterHost(db.url, uniqueName('w'), worlds);
    for (let i = 1; i <= 4; i++) await a.applyAtomic((view) => increment(view));
    // the build writes the declarations' row; the next section's condition expects what it wrote
    a.declareIndex({ type: 'counter', name: 'by_value', field: 'value' });
    expect((await a.lookup('counter', 'by_value', '4')).map((r) => r.id)).toEqual(['c']);
    const spy = vi.spyOn(pg.Client.prototype, 'query');
    try {
      expect((await a.applyAtomic((view) => increment(view))).result).toBe(5);
      expect(
        spy.mock.calls.filter((c) => !String(c[0] as unknown).startsWith('SET ROLE')),
      ).toHaveLength(1);
    } finally {
      spy.mockRestore();
    }
    expect((await a.lookup('counter', 'by_value', '5')).map((r) => r.id)).toEqual(['c']);
  });

  it("answers a read when its snapshot's reads land, not after its COMMIT", async () => {
    const db = await createDatabase('ort');
    const a = counterHost(db.url, uniqueName('w'), worlds);
    await a.applyAtomic((view) => increment(view));
    // COMMITs of read-only snapshots are held until the read has answered (or a second passed)
    const events: string[] = [];
    let open: () => void = () => {};
    const gate = new Promise<void>((resolve) => (open = resolve));
    const bound = setTimeout(() => open(), 1000);
    const original = pg.Client.prototype.query;
    const spy = vi.spyOn(pg.Client.prototype, 'query').mockImplementation(function (
      this: pg.Client,
      ...args: unknown[]
    ) {
      const call = () => (original as (...a: unknown[]) => unknown).apply(this, args);
      if (args[0] !== 'COMMIT') return call() as never;
      return gate.then(call).then((answer) => {
        events.push('commit ended');
        return answer;
      }) as never;
    });
    try {
      const value = await a.get('counter', 'c');
      events.push('answered');
      open();
      expect(value?.fields.value).toBe(1);
      await vi.waitFor(() => expect(events).toContain('commit ended'));
      expect(events).toEqual(['answered', 'commit ended']);
    } finally {
      clearTimeout(bound);
      spy.mockRestore();
    }
    // the session went back to the pool: the next read and write go on
    expect((await a.applyAtomic((view) => increment(view))).result).toBe(2);
  });
});
