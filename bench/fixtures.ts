// Fixtures shared by the benchmarks: canonical log lines generated without going through
// applyWrite, and a world holding a small (1k) and a big (1M) twin built once per process with
// twin.importLines, so write-vs-size and open-vs-history can share it.
import { canonicalJson, openWorld } from '../src/index.js';
import { count, figure, nowNs, note, sinceNs, tempDir } from './measure.js';

export const SMALL = 1_000;
/** Overridable for quick trial runs: BENCH_BIG=100000 node dist/bench/run.js write-vs-size */
export const BIG = Number(process.env.BENCH_BIG ?? 1_000_000);

const BASE_MS = Date.parse('2026-01-01T00:00:00.000Z');

export function customerId(i: number): string {
  return `cus_${String(i).padStart(8, '0')}`;
}

function writeId(seq: number): string {
  return `w${seq.toString(36).padStart(26, '0')}`;
}

export function customerFields(i: number, revision = 0): Record<string, string | number> {
  // keys in sorted order: the line is canonical JSON as long as every object is built sorted
  return {
    email: `c${i}@example.com`,
    n: revision,
    name: `Customer ${i}`,
    plan: revision % 2 === 0 ? 'pro' : 'team',
  };
}

/**
 * One canonical entry line (keys sorted at every depth, as canonicalJson writes them), shaped
 * like validateEntry expects: seq, writeId, twin, recordedAt, occurredAt, actor, operation,
 * subjectType, subjectId and fields (or delete).
 */
export function entryLine(
  seq: number,
  twin: string,
  operation: string,
  subjectType: string,
  subjectId: string,
  change: Record<string, unknown> | 'delete',
): string {
  const at = new Date(BASE_MS + seq * 1000).toISOString();
  const entry: Record<string, unknown> = { actor: 'system' };
  if (change === 'delete') entry.delete = true;
  else entry.fields = change;
  entry.occurredAt = at;
  entry.operation = operation;
  entry.recordedAt = at;
  entry.seq = seq;
  entry.subjectId = subjectId;
  entry.subjectType = subjectType;
  entry.twin = twin;
  entry.writeId = writeId(seq);
  return JSON.stringify(entry);
}

/** `count` customer.create entries, one per resource: count live resources, count entries. */
export function* createLines(twin: string, count: number): Generator<string> {
  for (let i = 1; i <= count; i++)
    yield entryLine(i, twin, 'customer.create', 'customer', customerId(i), customerFields(i));
}

/**
 * A mixed log of `count` entries over `resources` customers: every customer created first, then
 * updates to pseudo-random customers, with one delete in every 50 entries (re-created by a later update).
 */
export function* mixedLines(twin: string, count: number, resources: number): Generator<string> {
  let state = 0x2545f491;
  const next = (): number => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) % resources;
  };
  for (let seq = 1; seq <= count; seq++) {
    if (seq <= resources) {
      yield entryLine(
        seq,
        twin,
        'customer.create',
        'customer',
        customerId(seq),
        customerFields(seq),
      );
    } else {
      const i = next() + 1;
      if (seq % 50 === 0)
        yield entryLine(seq, twin, 'customer.delete', 'customer', customerId(i), 'delete');
      else
        yield entryLine(seq, twin, 'customer.update', 'customer', customerId(i), {
          n: seq,
          plan: seq % 3 === 0 ? 'team' : 'pro',
        });
    }
  }
}

/** The generator must write exactly what canonicalJson would, or the import would store other bytes. */
export function checkCanonical(lines: Iterable<string>, sample = 3): void {
  let i = 0;
  for (const line of lines) {
    if (canonicalJson(JSON.parse(line)) !== line)
      throw new Error(`bench fixture line is not canonical JSON: ${line}`);
    if (++i >= sample) return;
  }
}

export interface SizedWorld {
  readonly root: string;
  readonly small: string;
  readonly big: string;
  readonly smallSize: number;
  readonly bigSize: number;
}

let sized: Promise<SizedWorld> | undefined;

/** A world root with twin "small" (1k resources, 1k entries) and "big" (1M, 1M), built once. */
export function sizedWorld(): Promise<SizedWorld> {
  sized ??= buildSizedWorld();
  return sized;
}

async function buildSizedWorld(): Promise<SizedWorld> {
  const root = tempDir('sized');
  checkCanonical(createLines('big', 3));
  checkCanonical(mixedLines('big', 3, 1));
  const world = openWorld({ root });
  try {
    await world.twin('small').importLines(createLines('small', SMALL));
    const start = nowNs();
    const progress = await world.twin('big').importLines(createLines('big', BIG));
    const ns = sinceNs(start);
    if (progress.appended !== BIG)
      throw new Error(`big twin import appended ${progress.appended}, expected ${BIG}`);
    figure(`write-vs-size build: ${count(BIG)}-resource twin via importLines`, ns / 1e9, 's');
    figure('write-vs-size build rate', BIG / (ns / 1e9), 'entries/s');
  } finally {
    await world.close();
  }
  note(
    `sized world ready: twin "small" ${count(SMALL)} resources/entries, twin "big" ${count(BIG)} resources/entries (shared by write-vs-size and open-vs-history)`,
  );
  return { root, small: 'small', big: 'big', smallSize: SMALL, bigSize: BIG };
}
