// Delivery records are appended in the same commit as the write that caused them — a
// transactional outbox. These tests fail if the records were a second commit: a failure between
// the two would leave a committed write whose webhooks were forgotten (issue 18).
import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { TwinError } from '../../src/errors.js';
import type { Entry } from '../../src/log/write.js';
import { VirtualClock } from '../../src/world/clock.js';
import { registerPack } from '../../src/world/pack.js';
import { openWorld } from '../../src/world/world.js';
import { acmePack } from '../support/acme-pack.js';
import { tempDir } from '../support/backends.js';

const roots: string[] = [];
afterAll(() => roots.forEach((r) => rmSync(r, { recursive: true, force: true })));

// A customer write under the 1 MiB limit whose delivery record is over it: the record carries the
// rendered body as a JSON string, so every quote in the note is escaped twice more.
const BIG_NOTE = '"'.repeat(300_000);

function setup(root: string) {
  const errors: unknown[] = [];
  const world = openWorld({ root, clock: new VirtualClock('2026-04-01T00:00:00Z'), seed: 'outbox', onError: (e) => errors.push(e) });
  const twin = registerPack(world, acmePack());
  twin.applyWrite({ operation: 'endpoint.create', subjectType: 'endpoint', subjectId: 'ep', fields: { url: 'inproc://ep', secret_ref: 'ep', events: ['*'], status: 'enabled' } });
  const commits: string[][] = [];
  twin.use({ name: 'commit-observer', afterCommit: (entries: readonly Entry[]) => void commits.push(entries.map((e) => e.operation)) });
  return { world, twin, commits, errors };
}

describe('the outbox: records and write in one commit', () => {
  it('the write and its records reach commit observers as one commit', () => {
    const { twin, commits } = setup(':memory:');
    twin.applyWrite({ operation: 'customer.create', subjectType: 'customer', subjectId: 'cus_1', fields: { email: 'a@example.com' } });
    expect(commits).toEqual([['customer.create', 'delivery.create']]);
    expect(twin.head()).toBe(3);
  });

  for (const backend of ['memory', 'sqlite'] as const) {
    it(`${backend}: a record that cannot be appended takes its write down with it — nothing is committed`, async () => {
      const root = backend === 'memory' ? ':memory:' : tempDir();
      if (backend === 'sqlite') roots.push(root);
      const { world, twin, commits, errors } = setup(root);
      const head = twin.head();
      let caught: unknown;
      try {
        twin.applyWrite({ operation: 'customer.create', subjectType: 'customer', subjectId: 'cus_big', fields: { note: BIG_NOTE } });
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(TwinError);
      expect(caught).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', path: 'fan-out:acme[0]' });
      // neither the write nor a record, in the log, the state, or any observer's view
      expect(twin.head()).toBe(head);
      expect(twin.get('customer', 'cus_big')).toBeUndefined();
      expect(twin.list('delivery')).toEqual([]);
      expect(commits).toEqual([]);
      expect(errors).toEqual([]);
      // and nothing reached the disk: a fresh process sees the same
      if (backend === 'sqlite') {
        await world.close();
        const reopened = openWorld({ root });
        expect(reopened.twin('acme').head()).toBe(head);
        expect(reopened.twin('acme').get('customer', 'cus_big')).toBeUndefined();
        await reopened.close();
      }
    });
  }

  it('the same write commits when no endpoint takes its event: it was the record, not the write, that failed', () => {
    const { twin, commits } = setup(':memory:');
    twin.applyWrite({ operation: 'endpoint.disable', subjectType: 'endpoint', subjectId: 'ep', fields: { status: 'disabled' } });
    twin.applyWrite({ operation: 'customer.create', subjectType: 'customer', subjectId: 'cus_big', fields: { note: BIG_NOTE } });
    expect(twin.get('customer', 'cus_big')?.fields.note).toBe(BIG_NOTE);
    expect(commits.at(-1)).toEqual(['customer.create']);
  });

  it('a commit hook failing after the fan-out rolls back the write and its records alike', () => {
    const { twin, commits } = setup(':memory:');
    const head = twin.head();
    twin.use({
      name: 'veto',
      withinCommit: (entries) => {
        if (entries.some((e) => e.subjectId === 'cus_vetoed')) throw new TwinError('INVALID_WRITE', 'vetoed by a later hook');
        return [];
      },
    });
    expect(() => twin.applyWrite({ operation: 'customer.create', subjectType: 'customer', subjectId: 'cus_vetoed' })).toThrow(/vetoed/);
    expect(twin.head()).toBe(head);
    expect(twin.list('delivery')).toEqual([]);
    expect(commits).toEqual([]);
  });
});
