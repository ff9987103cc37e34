// Shared timing and reporting for the benchmarks: hrtime-based timing, the median of N rounds,
// one `# method:` line per benchmark, and result lines formatted as
// `name  value unit  (ratio vs baseline)`, with the goal judged on the ratio line.
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

// A full GC between rounds keeps one round's garbage from being collected on the next one's time.
setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as () => void;

export interface Benchmark {
  readonly name: string;
  run(): Promise<void>;
}

export function nowNs(): bigint {
  return process.hrtime.bigint();
}

/** Nanoseconds since `start` as a number. */
export function sinceNs(start: bigint): number {
  return Number(process.hrtime.bigint() - start);
}

export function timeNs(fn: () => void): number {
  const start = nowNs();
  fn();
  return sinceNs(start);
}

export async function timeNsAsync(fn: () => Promise<unknown>): Promise<number> {
  const start = nowNs();
  await fn();
  return sinceNs(start);
}

export function median(values: readonly number[]): number {
  if (values.length === 0) throw new Error('median of no values');
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Warms `one` up, then returns a round: `ops` calls of it, answered as calls per second. */
export function opsRate(one: () => void, ops: number, warmup: number): () => number {
  for (let i = 0; i < warmup; i++) one();
  return () => {
    const start = nowNs();
    for (let i = 0; i < ops; i++) one();
    return ops / (sinceNs(start) / 1e9);
  };
}

/** Runs `fn` `n` times (round index passed in) and returns the median of what it returned. */
export async function medianOf(
  n: number,
  fn: (round: number) => number | Promise<number>,
): Promise<number> {
  const values: number[] = [];
  for (let i = 0; i < n; i++) values.push(await fn(i));
  return median(values);
}

/** Three significant figures, never exponent notation. */
export function fmt(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  if (Math.abs(value) >= 1000) return String(Math.round(Number(value.toPrecision(3))));
  return String(Number(value.toPrecision(3)));
}

/** 1000 → "1k", 1000000 → "1M": for labels. */
export function count(n: number): string {
  if (n >= 1e6 && n % 1e6 === 0) return `${n / 1e6}M`;
  if (n >= 1e3 && n % 1e3 === 0) return `${n / 1e3}k`;
  return String(n);
}

export function method(text: string): void {
  console.log(`# method: ${text}`);
}

export function note(text: string): void {
  console.log(`# ${text}`);
}

/** An absolute figure on its own line: `name  value unit`. */
export function figure(name: string, value: number, unit: string): void {
  console.log(`${name}  ${fmt(value)} ${unit}`);
}

export interface Goal {
  /** `>=`: the ratio must be at least `target` (throughput); `<=`: at most (cost growth). */
  readonly op: '>=' | '<=';
  readonly target: number;
}

/** A figure with its ratio against a baseline measured in the same run, and the goal verdict. */
export function compared(
  name: string,
  value: number,
  unit: string,
  ratio: number,
  baseline: string,
  goal: Goal,
): boolean {
  const met = goal.op === '>=' ? ratio >= goal.target : ratio <= goal.target;
  const sign = goal.op === '>=' ? '≥' : '≤';
  console.log(
    `${name}  ${fmt(value)} ${unit}  (${ratio.toFixed(2)}x ${baseline})  [goal ${sign} ${goal.target}x] ${met ? 'goal met' : 'goal NOT met'}`,
  );
  return met;
}

// ---- temp dirs -------------------------------------------------------------------------------

const temps = new Set<string>();

export function tempDir(label: string): string {
  const dir = mkdtempSync(join(tmpdir(), `twinworld-bench-${label}-`));
  temps.add(dir);
  return dir;
}

export function removeTemp(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  temps.delete(dir);
}

export function removeAllTemps(): void {
  for (const dir of [...temps]) removeTemp(dir);
}

/** Lets pending I/O callbacks run, then collects garbage, so every round starts alike. */
export async function settle(): Promise<void> {
  await new Promise((r) => setImmediate(r));
  collect();
}

/** An absolute figure with a goal on the figure itself (not a ratio): `[goal ≤ 5 pages]`. */
export function bounded(
  name: string,
  value: number,
  unit: string,
  context: string,
  goal: Goal,
): boolean {
  const met = goal.op === '>=' ? value >= goal.target : value <= goal.target;
  const sign = goal.op === '>=' ? '≥' : '≤';
  console.log(
    `${name}  ${fmt(value)} ${unit}  (${context})  [goal ${sign} ${goal.target} ${unit}] ${met ? 'goal met' : 'goal NOT met'}`,
  );
  return met;
}

// ---- WAL accounting ---------------------------------------------------------------------------

/**
 * Write-ahead log of one SQLite file, for counting what commits write: `reset()` checkpoints and
 * truncates it (call between rounds, with no transaction open), `frames()` counts the pages
 * appended since. The writing connection must run with `wal_autocheckpoint = 0`, or a checkpoint
 * in the middle of a round restarts the file and hides pages.
 */
export class WalMeter {
  private readonly db: import('better-sqlite3').Database;
  private readonly pageSize: number;

  constructor(
    Driver: typeof import('better-sqlite3'),
    private readonly file: string,
  ) {
    this.db = new Driver(file);
    this.pageSize = this.db.pragma('page_size', { simple: true }) as number;
  }

  reset(): void {
    const [row] = this.db.pragma('wal_checkpoint(TRUNCATE)') as { busy: number }[];
    if (row?.busy !== 0) throw new Error(`could not checkpoint ${this.file}: a reader is busy`);
  }

  /** WAL frames (one page each) and bytes written since the last reset. */
  frames(): { pages: number; bytes: number } {
    const bytes = existsSync(`${this.file}-wal`) ? statSync(`${this.file}-wal`).size : 0;
    return { pages: Math.max(0, bytes - 32) / (this.pageSize + 24), bytes };
  }

  /** Commits since the last reset: a commit's last frame records the file's size, others 0. */
  commits(): number {
    const file = `${this.file}-wal`;
    if (!existsSync(file)) return 0;
    const wal = readFileSync(file);
    if (wal.length < 32) return 0;
    const pageSize = wal.readUInt32BE(8);
    let n = 0;
    for (let at = 32; at + 24 <= wal.length; at += 24 + pageSize)
      if (wal.readUInt32BE(at + 4) !== 0) n++;
    return n;
  }

  /**
   * The pages appended since the last reset, counted per B-tree they belong to (SQLite's dbstat;
   * page 1, the schema page, also holds the file's size, so it is written whenever the file grows).
   */
  byBtree(): Map<string, number> {
    const file = `${this.file}-wal`;
    const owner = new Map<number, string>();
    for (const row of this.db.prepare('SELECT name, pageno FROM dbstat').all() as {
      name: string;
      pageno: number;
    }[])
      owner.set(row.pageno, row.name);
    const out = new Map<string, number>();
    if (!existsSync(file)) return out;
    const wal = readFileSync(file);
    const pageSize = wal.length >= 32 ? wal.readUInt32BE(8) : this.pageSize;
    for (let at = 32; at + 24 <= wal.length; at += 24 + pageSize) {
      const name = owner.get(wal.readUInt32BE(at)) ?? 'new pages';
      out.set(name, (out.get(name) ?? 0) + 1);
    }
    return out;
  }

  close(): void {
    this.db.close();
  }
}
