// Delivery records are appended in the same commit as the write that caused them — a
// transactional outbox. These tests fail if the records were a second commit: a failure between
// the two would leave a committed write whose webhooks were forgotten (issue 18). A section
// buffers its writes and flushes them to the store at its end, inside the transaction; so the
// failure is injected there too, after the write has reached the store and before its record has.
import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { TwinError } from '../../src/errors.js';
import type { Entry } from '../../src/log/write.js';
import { registerPack } from '../../src/events/pack-registry.js';
import { MemoryBackend } from '../../src/storage/memory/memory-backend.js';
import type { StorageBackend } from '../../src/storage/port.js';
import { interceptStoreWrites } from '../support/intercepted-backend.js';
import { SqliteBackend } from '../../src/storage/sqlite/sqlite-backend.js';
import { VirtualClock } from '../../src/world/clock.js';
import { openWorld } from '../../src/world/world.js';
import { acmePack, createAcmeEndpoint } from '../support/acme-pack.js';
import { tempDir } from '../support/backends.js';

const roots: string[] = [];
afterAll(() => roots.forEach((r) => rmSync(r, { recursive: true, force: true })));

// A customer write under the 1 MiB limit whose delivery record is over it: the record carries the
// rendered body as a JSON string, so every quote in the note is escaped twice more.
const BIG_NOTE = '"'.repeat(300_000);

async function setup(root: string, backend?: StorageBackend) {
  const errors: unknown[] = [];
  const world = openWorld({
    root,
    clock: new VirtualClock('2026-04-01T00:00:00Z'),
    seed: 'outbox',
    onError: (e) => errors.push(e),
    ...(backend === undefined ? {} : { backend }),
  });
  const twin = registerPack(world, acmePack());
  await createAcmeEndpoint(twin);
  const commits: string[][] = [];
  twin.use({
    name: 'commit-observer',
    afterCommit: (entries: readonly Entry[]) => void commits.push(entries.map((e) => e.operation)),
  });
  return { world, twin, commits, errors };
}

type StoreWrite = 'append' | 'put';

/**
 * A real backend whose write sections, while armed, fail on one store write of a delivery
 * record (its entry's append or its resource's put). `landed` lists the store writes made before
 * the failure, so a test can show the write that caused the record had reached the store.
 */
function failingOnRecord(inner: StorageBackend, at: StoreWrite) {
  const fault = {
    armed: false,
    landed: [] as string[],
    error: new Error(`injected: the store failed on the delivery record's ${at}`),
  };
  const backend = interceptStoreWrites(inner, {
    append: (entry, write) => {
      if (!fault.armed) return write();
      if (at === 'append' && entry.subjectType === 'delivery') throw fault.error;
      write();
      fault.landed.push(`append ${entry.operation}`);
    },
    putResource: (resource, write) => {
      if (!fault.armed) return write();
      if (at === 'put' && resource.type === 'delivery') throw fault.error;
      write();
      fault.landed.push(`put ${resource.type}/${resource.id}`);
    },
  });
  return { backend, fault };
}

describe('the outbox: records and write in one commit', () => {
  it('the write and its records reach commit observers as one commit', async () => {
    const { twin, commits } = await setup(':memory:');
    await twin.applyWrite({
      operation: 'customer.create',
      subjectType: 'customer',
      subjectId: 'cus_1',
      fields: { email: 'a@example.com' },
    });
    expect(commits).toEqual([['customer.create', 'delivery.create']]);
    expect(await twin.head()).toBe(3);
  });

  for (const backend of ['memory', 'sqlite'] as const) {
    it(`${backend}: a record that cannot be appended takes its write down with it — nothing is committed`, async () => {
      const root = backend === 'memory' ? ':memory:' : tempDir();
      if (backend === 'sqlite') roots.push(root);
      const { world, twin, commits, errors } = await setup(root);
      const head = await twin.head();
      let caught: unknown;
      try {
        await twin.applyWrite({
          operation: 'customer.create',
          subjectType: 'customer',
          subjectId: 'cus_big',
          fields: { note: BIG_NOTE },
        });
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(TwinError);
      expect(caught).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', path: 'fan-out:acme[0]' });
      // neither the write nor a record, in the log, the state, or any observer's view
      expect(await twin.head()).toBe(head);
      expect(await twin.get('customer', 'cus_big')).toBeUndefined();
      expect(await twin.list('delivery')).toEqual([]);
      expect(commits).toEqual([]);
      expect(errors).toEqual([]);
      // and nothing reached the disk: a fresh process sees the same
      if (backend === 'sqlite') {
        await world.close();
        const reopened = openWorld({ root });
        expect(await reopened.twin('acme').head()).toBe(head);
        expect(await reopened.twin('acme').get('customer', 'cus_big')).toBeUndefined();
        await reopened.close();
      }
    });
  }

  for (const backend of ['memory', 'sqlite'] as const) {
    for (const at of ['append', 'put'] as const) {
      it(`${backend}: the store failing on the record's ${at}, after the write reached it, rolls the write back with it`, async () => {
        const root = backend === 'memory' ? ':memory:' : tempDir();
        if (backend === 'sqlite') roots.push(root);
        const { backend: failing, fault } = failingOnRecord(
          backend === 'memory' ? new MemoryBackend() : new SqliteBackend(root),
          at,
        );
        const { world, twin, commits, errors } = await setup(root, failing);
        const head = await twin.head();
        const write = {
          operation: 'customer.create',
          subjectType: 'customer',
          subjectId: 'cus_1',
          fields: { email: 'a@example.com' },
        };
        fault.armed = true;
        await expect(twin.applyWrite(write)).rejects.toBe(fault.error);
        fault.armed = false;
        // the failure came between the write and its record: the write was already in the store's transaction
        expect(fault.landed).toContain('append customer.create');
        expect(
          fault.landed.some(
            (w) => w.startsWith('append delivery') || w.startsWith('put delivery/'),
          ),
        ).toBe(at === 'put');
        expect(await twin.head()).toBe(head);
        expect(await twin.get('customer', 'cus_1')).toBeUndefined();
        expect(await twin.list('delivery')).toEqual([]);
        expect(await twin.entriesFor('customer', 'cus_1')).toEqual([]);
        expect(commits).toEqual([]);
        expect(errors).toEqual([]);
        // the twin is not left believing in the lost commit: the same write then commits whole, right after the old head
        const entry = await twin.applyWrite(write);
        expect(entry.seq).toBe(head + 1);
        expect(commits).toEqual([['customer.create', 'delivery.create']]);
        expect(await twin.head()).toBe(head + 2);
        expect(await twin.list('delivery')).toHaveLength(1);
        if (backend === 'sqlite') {
          await world.close();
          const reopened = openWorld({ root });
          expect(await reopened.twin('acme').head()).toBe(head + 2);
          expect(
            (await reopened.twin('acme').entries()).map((e) => e.operation).slice(head),
          ).toEqual(['customer.create', 'delivery.create']);
          await reopened.close();
        } else {
          await world.close();
        }
      });
    }
  }

  it('the same write commits when no endpoint takes its event: it was the record, not the write, that failed', async () => {
    const { twin, commits } = await setup(':memory:');
    await twin.applyWrite({
      operation: 'endpoint.disable',
      subjectType: 'endpoint',
      subjectId: 'ep',
      fields: { status: 'disabled' },
    });
    await twin.applyWrite({
      operation: 'customer.create',
      subjectType: 'customer',
      subjectId: 'cus_big',
      fields: { note: BIG_NOTE },
    });
    expect((await twin.get('customer', 'cus_big'))?.fields.note).toBe(BIG_NOTE);
    expect(commits.at(-1)).toEqual(['customer.create']);
  });

  it('a commit hook failing after the fan-out rolls back the write and its records alike', async () => {
    const { twin, commits } = await setup(':memory:');
    const head = await twin.head();
    twin.use({
      name: 'veto',
      withinCommit: (entries) => {
        if (entries.some((e) => e.subjectId === 'cus_vetoed'))
          throw new TwinError('INVALID_WRITE', 'vetoed by a later hook');
        return [];
      },
    });
    await expect(
      twin.applyWrite({
        operation: 'customer.create',
        subjectType: 'customer',
        subjectId: 'cus_vetoed',
      }),
    ).rejects.toThrow(/vetoed/);
    expect(await twin.head()).toBe(head);
    expect(await twin.get('customer', 'cus_vetoed')).toBeUndefined();
    expect(await twin.list('delivery')).toEqual([]);
    expect(commits).toEqual([]);
  });
});
