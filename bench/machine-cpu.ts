// How busy the whole machine was through a measured window, for benchmarks whose processes share a
// few cores: a rate that does not grow with processes means one thing when the cores sat idle, and
// another when they were all taken. Read from Linux's /proc/stat (NaN elsewhere).
import { existsSync, readFileSync } from 'node:fs';

export interface MachineCpu {
  /** Clock ticks every core spent, idle or not, since boot. */
  readonly total: number;
  /** Of those, the ticks spent idle or waiting for I/O. */
  readonly idle: number;
}

export function machineCpu(): MachineCpu {
  if (!existsSync('/proc/stat')) return { total: NaN, idle: NaN };
  // "cpu  user nice system idle iowait irq softirq steal ...": the sum over every core.
  const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!;
  const ticks = line.trim().split(/\s+/).slice(1).map(Number);
  return { total: ticks.reduce((a, b) => a + b, 0), idle: ticks[3]! + ticks[4]! };
}

/** Cores kept busy on average between two readings (0 to the core count). */
export function coresBusy(from: MachineCpu, to: MachineCpu, cores: number): number {
  const total = to.total - from.total;
  return total > 0 ? (cores * (total - (to.idle - from.idle))) / total : NaN;
}
