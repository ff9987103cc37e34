// Index declarations are durable: recorded in the store with their signature, loaded by every
// process that opens the twin, and maintained by every write whichever process makes it. A real
// child process that declares nothing writes rows — some before the index is declared, some after
// (it opened the twin before the declaration existed) — and the declaring process finds every one
// through the index and in the due-time index; a third world that declares nothing looks them up
// too. On memory, the writer is a second world over the same backend.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';
import { DUE_FIELD, DUE_INDEX } from '../../src/work/lease.js';
import { MemoryBackend } from '../../src/storage/memory/memory-backend.js';
import { openWorld, type World } from '../../src/world/world.js';
import { homes } from '../support/backends.js';
import { openWorldAt } from '../support/world-at.js';

const TWIN = 'shop';
const byPlan = { type: 'customer', name: 'byPlan', field: 'plan' } as const;
const due = { type: 'customer', name: DUE_INDEX, field: DUE_FIELD } as const;

/** A writer that declared nothing: `write` resolves once its row is committed. */
interface Writer {
  write(id: string, plan: string, dueAt: string): Promise<void>;
  close(): Promise<void>;
}

function childWriter(spec: string): Promise<Writer> {
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, [
    'dist/test/support/index-writer.js',
    spec,
    TWIN,
  ]);
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const next = async (expected: string): Promise<void> => {
    const line = await lines.next();
    if (line.value !== expected)
      throw new Error(`writer said ${line.value}, not ${expected}: ${stderr}`);
  };
  return next('ready').then(() => ({
    async write(id, plan, dueAt) {
      child.stdin.write(`${id} ${plan} ${dueAt}\n`);
      await next(`ok ${id}`);
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        child.on('exit', (code) =>
          code === 0 ? resolve() : reject(new Error(`writer exited ${code}: ${stderr}`)),
        );
        child.stdin.end();
      }),
  }));
}

function worldWriter(world: World): Writer {
  const twin = world.twin(TWIN);
  return {
    async write(id, plan, dueAt) {
      await twin.applyWrite({
        operation: 'customer.upsert',
        subjectType: 'customer',
        subjectId: id,
        fields: { plan, dueAt },
      });
    },
    close: () => world.close(),
  };
}

interface Case {
  readonly name: string;
  /** A world that declares, a writer that declares nothing, and another world that declares nothing. */
  open(): Promise<{
    declarer: () => World;
    writer: () => Promise<Writer>;
    reader: () => World;
    cleanup: () => void;
  }>;
}

const cases: Case[] = [
  {
    name: 'memory',
    async open() {
      const backend = new MemoryBackend();
      return {
        declarer: () => openWorld({ root: ':memory:', backend }),
        writer: () => Promise.resolve(worldWriter(openWorld({ root: ':memory:', backend }))),
        reader: () => openWorld({ root: ':memory:', backend }),
        cleanup: () => {},
      };
    },
  },
  ...homes.map((home): Case => ({
    name: home.name,
    async open() {
      const { spec, cleanup } = home.fresh();
      return {
        declarer: () => openWorldAt(spec),
        writer: () => childWriter(spec),
        reader: () => openWorldAt(spec),
        cleanup,
      };
    },
  })),
];

const cleanups: (() => void)[] = [];
afterAll(() => cleanups.forEach((c) => c()));

describe.each(cases)('durable index declarations: $name', (c) => {
  it('rows written by a process that declared nothing are in the index and the due index', async () => {
    const { declarer, writer, reader, cleanup } = await c.open();
    cleanups.push(cleanup);
    const ids = (rows: readonly { id: string }[]) => rows.map((r) => r.id);

    // The writer opens the twin before any index exists, and writes a first row.
    const w = await writer();
    await w.write('cus_1', 'pro', '2026-03-01T00:00:00.000Z');

    const world = declarer();
    const twin = world.twin(TWIN);
    twin.declareIndex(byPlan);
    twin.declareIndex(due);
    expect(ids(await twin.lookup('customer', 'byPlan', 'pro'))).toEqual(['cus_1']); // built once

    // Declared after the writer opened: its next writes maintain both indexes all the same.
    await w.write('cus_2', 'pro', '2026-03-03T00:00:00.000Z');
    await w.write('cus_3', 'free', '2026-03-02T00:00:00.000Z');
    await w.write('cus_1', 'free', '2026-03-04T00:00:00.000Z'); // moves between keys
    await w.close();

    expect(ids(await twin.lookup('customer', 'byPlan', 'pro'))).toEqual(['cus_2']);
    expect(ids(await twin.lookup('customer', 'byPlan', 'free'))).toEqual(['cus_1', 'cus_3']);
    const dueBy = (at: string) =>
      twin.read((view) => ids(view.lookupUpTo('customer', DUE_INDEX, at, 10)));
    expect(await dueBy('2026-03-02T00:00:00.000Z')).toEqual(['cus_3']);
    expect(await dueBy('9999')).toEqual(['cus_3', 'cus_2', 'cus_1']); // due order
    await world.close();

    // A process that opens the twin later and declares nothing finds the declarations recorded.
    const later = reader();
    const seen = later.twin(TWIN);
    expect(ids(await seen.lookup('customer', 'byPlan', 'free'))).toEqual(['cus_1', 'cus_3']);
    await seen.applyWrite({
      operation: 'customer.upsert',
      subjectType: 'customer',
      subjectId: 'cus_4',
      fields: { plan: 'pro', dueAt: '2026-03-01T12:00:00.000Z' },
    });
    expect(
      await seen.read((view) => ids(view.lookupUpTo('customer', DUE_INDEX, '9999', 2))),
    ).toEqual(['cus_4', 'cus_3']);
    await later.close();
  });

  it('a declaration of the same name on another field is refused in one process, and rebuilt when another process changes it', async () => {
    const { declarer, reader, cleanup } = await c.open();
    cleanups.push(cleanup);
    const world = declarer();
    const twin = world.twin(TWIN);
    twin.declareIndex(byPlan);
    expect(() => twin.declareIndex({ ...byPlan, field: 'tier' })).toThrow(
      /already declared on field "plan"/,
    );
    await twin.applyWrite({
      operation: 'customer.upsert',
      subjectType: 'customer',
      subjectId: 'cus_9',
      fields: { plan: 'pro', tier: 'gold' },
    });
    await world.close();

    // A newer version of the code declares the index on another field: rebuilt and recorded.
    const next = reader();
    const changed = next.twin(TWIN);
    changed.declareIndex({ ...byPlan, field: 'tier' });
    expect((await changed.lookup('customer', 'byPlan', 'gold')).map((r) => r.id)).toEqual([
      'cus_9',
    ]);
    expect(await changed.lookup('customer', 'byPlan', 'pro')).toEqual([]);
    await next.close();
  });
});
