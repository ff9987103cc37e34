// The due pick in the commit before (issue 29): while a process is a twin's only writer, each of
// its commits also reads the due index, so the next section that picks due work and claims it is one
// round trip instead of two (the pick under the lock, then the commit). The rows are used only when
// they answer the pick exactly at the head that section's commit is conditional on; after another
// host wrote, the pick is read again and nothing is claimed twice.
import pg from 'pg';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { PostgresBackend } from '../../src/storage/postgres/index.js';
import type { Resource } from '../../src/state/resource.js';
import { DUE_INDEX } from '../../src/state/indexes.js';
import { commit, type Decision } from '../../src/world/decision.js';
import type { ReadView } from '../../src/state/read-view.js';
import type { Twin } from '../../src/world/twin.js';
import { openWorld, type World } from '../../src/world/world.js';
import { createDatabase, uniqueName } from './postgres-support.js';

const worlds: World[] = [];
afterAll(async () => {
  for (const w of worlds) await w.close();
});

const DUE = '2026-01-01T00:00:00.000Z';
const LATER = '2999-01-01T00:00:00.000Z';

function host(url: string, name: string): Twin {
  const world = openWorld({
    root: `postgres://test/${name}`,
    backend: new PostgresBackend(url, name),
  });
  worlds.push(world);
  const twin = world.twin('jobs');
  twin.declareIndex({ type: 'job', name: DUE_INDEX, field: 'dueAt' });
  return twin;
}

function addJob(twin: Twin, id: string) {
  return twin.applyWrite({
    operation: 'job.create',
    subjectType: 'job',
    subjectId: id,
    fields: { dueAt: DUE, claimedBy: null },
  });
}

/** Picks up to `limit` due jobs and claims each for `by` (its due time moves past the test). */
function claim(by: string, limit: number) {
  return (view: ReadView): Decision<string[]> => {
    const picked: Resource[] = view.pickUpTo!('job', DUE_INDEX, '2030-01-01T00:00:00.000Z', limit);
    const writes = picked.map((r) => ({
      operation: 'job.claim',
      subjectType: 'job',
      subjectId: r.id,
      fields: { dueAt: LATER, claimedBy: by },
    }));
    return commit(
      writes,
      picked.map((r) => r.id),
    );
  };
}

describe('PostgreSQL: the due pick read in the commit before', () => {
  it('makes a claim one round trip while the process writes alone, and is read again after another host wrote', async () => {
    const db = await createDatabase('hint');
    const name = uniqueName('w');
    const a = host(db.url, name);
    const b = host(db.url, name);
    for (let i = 0; i < 12; i++) await addJob(a, `job_${String(i).padStart(2, '0')}`);
    // b has opened (its background setup is not a's section) and a has looked at a quiet head
    // often enough to go optimistically
    expect(await b.list('job')).toHaveLength(12);
    // the first pick is read; its commit reads the due index for the next (as many rows as it took)
    expect((await a.applyAtomic(claim('a', 3))).result).toEqual(['job_00', 'job_01', 'job_02']);

    const spy = vi.spyOn(pg.Client.prototype, 'query');
    const roundTrips = () =>
      spy.mock.calls.filter((c) => !String(c[0] as unknown).startsWith('SET ROLE')).length;
    try {
      // the commit before read the due index: the pick is answered from it
      expect((await a.applyAtomic(claim('a', 2))).result).toEqual(['job_03', 'job_04']);
      expect(roundTrips()).toBe(1);
      spy.mockClear();
      expect((await a.applyAtomic(claim('a', 3))).result).toEqual(['job_05', 'job_06', 'job_07']);
      expect(roundTrips()).toBe(1);
    } finally {
      spy.mockRestore();
    }

    // another host claims meanwhile: a's rows (job_08 to job_10) were read at a head that is gone.
    // a's section decides on them, its condition fails, and it runs again with the pick read.
    expect((await b.applyAtomic(claim('b', 2))).result).toEqual(['job_08', 'job_09']);
    expect((await a.applyAtomic(claim('a', 2))).result).toEqual(['job_10', 'job_11']);
    expect((await a.applyAtomic(claim('a', 5))).result).toEqual([]);

    const jobs = await b.list('job');
    expect(jobs.map((j) => j.fields.claimedBy)).toEqual([
      ...Array(8).fill('a'),
      'b',
      'b',
      'a',
      'a',
    ]);
    // each job claimed once: one claim entry per job, the log dense
    const entries = await b.entries();
    expect(entries.filter((e) => e.operation === 'job.claim')).toHaveLength(12);
    expect(entries.map((e) => e.seq)).toEqual(entries.map((_, i) => i + 1));
  });

  it('is forgotten when the section must go again under the lock: rows another host changed are read again', async () => {
    const db = await createDatabase('hint_reset');
    const name = uniqueName('w');
    const a = host(db.url, name);
    const b = host(db.url, name);
    for (let i = 0; i < 6; i++) await addJob(a, `job_${i}`);
    expect(await b.list('job')).toHaveLength(6);
    expect((await a.applyAtomic(claim('a', 3))).result).toEqual(['job_0', 'job_1', 'job_2']);
    // a's commit read job_3..job_5 as unclaimed; then b takes job_3, leaving it due
    await b.applyWrite({
      operation: 'job.take',
      subjectType: 'job',
      subjectId: 'job_3',
      fields: { dueAt: DUE, claimedBy: 'b' },
    });
    // a's decide picks from those rows, then reads what it never read: the run stops, and goes
    // again under the lock at b's head, where job_3 is b's
    const out = await a.applyAtomic((view) => {
      const picked = view.pickUpTo!('job', DUE_INDEX, '2030-01-01T00:00:00.000Z', 3);
      const free = picked.filter((r) => view.get('job', r.id)?.fields.claimedBy === null);
      view.get('note', 'never-read');
      return commit(
        free.map((r) => ({
          operation: 'job.claim',
          subjectType: 'job',
          subjectId: r.id,
          fields: { dueAt: LATER, claimedBy: 'a' },
        })),
        free.map((r) => r.id),
      );
    });
    expect(out.result).toEqual(['job_4', 'job_5']);
    expect((await b.get('job', 'job_3'))?.fields.claimedBy).toBe('b');
  });

  it('is not used when the pick wants more rows than it holds', async () => {
    const db = await createDatabase('hint_more');
    const name = uniqueName('w');
    const a = host(db.url, name);
    for (let i = 0; i < 6; i++) await addJob(a, `job_${i}`);
    for (let i = 0; i < 4; i++)
      await a.applyWrite({
        operation: 'noop.set',
        subjectType: 'noop',
        subjectId: 'n',
        fields: { i },
      });
    // a pick of 1 leaves a hint of 1 row: a pick of 3 cannot be answered from it
    expect((await a.applyAtomic(claim('a', 1))).result).toEqual(['job_0']);
    const spy = vi.spyOn(pg.Client.prototype, 'query');
    try {
      expect((await a.applyAtomic(claim('a', 3))).result).toEqual(['job_1', 'job_2', 'job_3']);
      expect(
        spy.mock.calls.filter((c) => !String(c[0] as unknown).startsWith('SET ROLE')).length,
      ).toBe(2);
    } finally {
      spy.mockRestore();
    }
  });
});
