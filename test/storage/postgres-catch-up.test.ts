// Catching up with other hosts' appends (issue 29): a host learns what another host's entries
// touched without reading their bodies — only those that may carry a projection (the resources an
// entry touches besides its subject) and the newest (whose hash the next entry links to) come whole
// — and a host with nothing cached reads no entry at all. The caches stay right and the chain holds.
import pg from 'pg';
import { afterAll, describe, expect, it, vi } from 'vitest';
import type { Write } from '../../src/log/write.js';
import { commit } from '../../src/world/decision.js';
import type { Twin } from '../../src/world/twin.js';
import { verifyTwin } from '../../src/world/verify.js';
import type { World } from '../../src/world/world.js';
import { counterHost, increment } from './postgres-counter-hosts.js';
import { createDatabase, uniqueName } from './postgres-support.js';

const worlds: World[] = [];
afterAll(async () => {
  for (const w of worlds) await w.close();
});

/** Two hosts of one fresh world; b's background open is awaited, so its queries are done. */
async function twoHosts(prefix: string): Promise<{ a: Twin; b: Twin }> {
  const db = await createDatabase(prefix);
  const name = uniqueName('w');
  const a = counterHost(db.url, name, worlds);
  const b = counterHost(db.url, name, worlds);
  await a.head();
  await b.head();
  return { a, b };
}

const write = (twin: Twin, w: Write): Promise<unknown> => twin.applyAtomic(() => commit(w));

/** An entry on item `id` that touches tally/t only through its projection. */
const tallyWrite = (id: string, n: number): Write => ({
  operation: 'item.add',
  subjectType: 'item',
  subjectId: id,
  fields: { n },
  projection: { updates: [{ type: 'tally', id: 't', fields: { n } }] },
});

/**
 * Runs `fn`, counting what sections asked of the store meanwhile: their round trips (a pooled
 * session's one-time setup is not one), the reads of the log among them, and the entry bodies
 * those answered.
 */
async function counting(
  fn: () => Promise<void>,
): Promise<{ roundTrips: number; logReads: string[]; bodies: number }> {
  const spy = vi.spyOn(pg.Client.prototype, 'query');
  try {
    await fn();
    const sent = spy.mock.calls.map((c, i) => ({ text: String(c[0] as unknown), i }));
    // inside a section a read of the log is an EXECUTE of a statement the session prepared
    const logReads = sent.filter(
      (q) =>
        q.text.includes('FROM twinworld.entries') ||
        /EXECUTE twinworld_(range|touched|bySubject)\(/.test(q.text),
    );
    let bodies = 0;
    for (const { i } of logReads) {
      const answer = (await spy.mock.results[i]!.value) as unknown;
      for (const result of Array.isArray(answer) ? answer : [answer])
        for (const row of (result as { rows?: Record<string, unknown>[] }).rows ?? [])
          if (typeof row.body === 'string') bodies++;
    }
    return {
      roundTrips: sent.filter((q) => !q.text.startsWith('SET ROLE')).length,
      logReads: logReads.map((q) => q.text),
      bodies,
    };
  } finally {
    spy.mockRestore();
  }
}

/** The twin's log verifies (its hash chain included) and holds `entries` entries. */
async function expectChain(twin: Twin, entries: number): Promise<void> {
  const report = await verifyTwin(twin);
  expect(report.problem).toBeUndefined();
  expect(report.ok).toBe(true);
  expect(report.entries).toBe(entries);
}

describe('PostgreSQL: catching up with another host', () => {
  it('evicts what the other host changed, plain subjects and resources touched only through a projection', async () => {
    const { a, b } = await twoHosts('cu_evict');
    await write(a, tallyWrite('i1', 1));
    expect((await a.applyAtomic(increment)).result).toBe(1);
    // a caches both, then b changes both: tally/t through a projection that is not the newest entry
    expect((await a.get('tally', 't'))?.fields.n).toBe(1);
    expect((await a.get('counter', 'c'))?.fields.value).toBe(1);
    await write(b, tallyWrite('i2', 2));
    expect((await b.applyAtomic(increment)).result).toBe(2);
    await write(b, { operation: 'note.add', subjectType: 'note', subjectId: 'n1', fields: {} });
    expect((await a.get('tally', 't'))?.fields.n).toBe(2);
    expect((await a.get('counter', 'c'))?.fields.value).toBe(2);
    // a deleting projection, caught up by a write section this time
    await write(b, {
      operation: 'item.remove',
      subjectType: 'item',
      subjectId: 'i2',
      projection: { deletes: [{ type: 'tally', id: 't' }] },
    });
    await write(b, { operation: 'note.add', subjectType: 'note', subjectId: 'n2', fields: {} });
    expect(
      (
        await a.applyAtomic((view) => {
          const tally = view.get('tally', 't');
          return commit(increment(view).writes, tally?.deleted === true ? 'deleted' : 'live');
        })
      ).result,
    ).toBe('deleted');
    expect((await b.get('counter', 'c'))?.fields.value).toBe(3);
    await expectChain(a, 8);
  });

  it('reads the bodies only of entries with a projection and of the newest; the chain links on', async () => {
    const { a, b } = await twoHosts('cu_bodies');
    expect((await a.applyAtomic(increment)).result).toBe(1);
    expect((await a.get('counter', 'c'))?.fields.value).toBe(1);
    for (let i = 0; i < 4; i++) await b.applyAtomic(increment);
    await write(b, tallyWrite('i1', 1));
    for (let i = 0; i < 3; i++) await b.applyAtomic(increment);
    // 8 entries of b's to catch up with: 1 projects, 1 is the newest
    const asked = await counting(async () => {
      expect((await a.get('counter', 'c'))?.fields.value).toBe(8);
    });
    expect(asked.logReads.length).toBe(1);
    expect(asked.bodies).toBe(2);
    expect((await a.get('tally', 't'))?.fields.n).toBe(1);
    // a links its next entry to b's newest, hashed from the body the catch-up read
    expect((await a.applyAtomic(increment)).result).toBe(9);
    await expectChain(a, 10);
  });

  it('reads no entry at all on a host with nothing cached; its first write links to the newest', async () => {
    const { a, b } = await twoHosts('cu_fresh');
    for (let i = 0; i < 5; i++) await a.applyAtomic(increment);
    await write(a, tallyWrite('i1', 1));
    const asked = await counting(async () => {
      expect((await b.applyAtomic(increment)).result).toBe(6);
    });
    // the lock, the head, the chain head and the counter in one round trip; the commit
    expect(asked.logReads).toEqual([]);
    expect(asked.roundTrips).toBe(2);
    expect((await b.get('tally', 't'))?.fields.n).toBe(1);
    expect((await a.applyAtomic(increment)).result).toBe(7);
    await expectChain(b, 8);
  });

  it('hosts taking turns on one counter: two round trips each, the lock and its reads then the commit', async () => {
    const { a, b } = await twoHosts('cu_turns');
    expect((await a.applyAtomic(increment)).result).toBe(1);
    expect((await b.applyAtomic(increment)).result).toBe(2);
    // From here each host finds the counter it caches changed by the other: the first time it
    // needs three round trips (the row again, once the catch-up evicted it); after that it asks
    // for the row with the lock, and the run that goes again finds it loaded.
    expect((await a.applyAtomic(increment)).result).toBe(3);
    expect((await b.applyAtomic(increment)).result).toBe(4);
    for (let turn = 0; turn < 3; turn++) {
      for (const [host, expected] of [
        [a, 5 + 2 * turn],
        [b, 6 + 2 * turn],
      ] as const) {
        const asked = await counting(async () => {
          expect((await host.applyAtomic(increment)).result).toBe(expected);
        });
        expect(asked.roundTrips).toBe(2);
      }
    }
    // the other host's row was read fresh, never taken stale from the cache
    expect((await a.get('counter', 'c'))?.fields.value).toBe(10);
    await expectChain(b, 10);
  });

  it('evicts everything after a tenant section, which cannot see what other tenants changed', async () => {
    const { a, b } = await twoHosts('cu_tenant');
    const put = (twin: Twin, v: number) =>
      write(twin, {
        operation: 'x.set',
        subjectType: 'x',
        subjectId: 'x1',
        fields: { tenantId: 't1', v },
      });
    await put(a, 1);
    expect((await a.get('x', 'x1'))?.fields.v).toBe(1);
    await put(b, 2);
    // a section of tenant t2 catches a up first: b's entry is hidden from it
    expect(await a.read((view) => view.get('x', 'x1'), { tenant: 't2' })).toBeUndefined();
    expect((await a.get('x', 'x1'))?.fields.v).toBe(2);
  });
});
