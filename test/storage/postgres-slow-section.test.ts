// A PostgreSQL section still open after `slowSectionMs` is reported as a process warning
// (TWINWORLD_SLOW_SECTION) that says what it waits for: the server's answer to a query it sent
// (here, the twin's lock that another session holds), or this process, with no query of its own
// in flight. Nothing is cancelled: the sections finish as they would have.
import { afterEach, describe, expect, it } from 'vitest';
import { PostgresBackend } from '../../src/storage/postgres/index.js';
import { twinLockKey } from '../../src/storage/postgres/lock-key.js';
import { asSuperuser, createDatabase } from './postgres-support.js';

const warnings: Error[] = [];
const onWarning = (w: Error): void => void warnings.push(w);
afterEach(() => {
  process.off('warning', onWarning);
  warnings.length = 0;
});

const slowOnes = () =>
  warnings.filter((w) => (w as Error & { code?: string }).code === 'TWINWORLD_SLOW_SECTION');

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('PostgreSQL: a slow section is reported', () => {
  it('waiting in this process: no query of its own in flight', async () => {
    const db = await createDatabase('slowsec');
    const backend = new PostgresBackend(db.url, 'w', { slowSectionMs: 200 });
    const store = await backend.openTwin('t');
    process.on('warning', onWarning);
    const head = await store.transact(async (tx) => {
      const seen = await tx.head();
      await sleep(600);
      return seen;
    });
    expect(head).toBe(0);
    const [warning, ...more] = slowOnes();
    expect(more).toEqual([]);
    expect(warning!.message).toBe(
      'twinworld: twin "t" of world "w": a section has been open 0.2 s, no query of its own in flight: it waits in this process (for a read it has not sent, or for work between its reads and its commit)',
    );
    // a quick section says nothing
    await store.transact(async (tx) => tx.head());
    await sleep(300);
    expect(slowOnes()).toHaveLength(1);
    await backend.close();
  });

  it("waiting for the server: the twin's lock, held by another session", async () => {
    const db = await createDatabase('slowlock');
    const backend = new PostgresBackend(db.url, 'w', { slowSectionMs: 200 });
    const store = await backend.openTwin('t');
    process.on('warning', onWarning);
    await asSuperuser(db.name, async (holder) => {
      await holder.query(`SELECT pg_advisory_lock(${twinLockKey('w', 't')})`);
      const section = store.transact(async (tx) => tx.head());
      await sleep(600);
      await holder.query(`SELECT pg_advisory_unlock(${twinLockKey('w', 't')})`);
      expect(await section).toBe(0);
    });
    const [warning] = slowOnes();
    expect(warning!.message).toMatch(
      /^twinworld: twin "t" of world "w": a section has been open 0\.2 s, waiting for PostgreSQL to answer: BEGIN; EXECUTE twinworld_lock\(-?\d+\); /,
    );
    await backend.close();
  });
});
