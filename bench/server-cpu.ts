// The CPU a throwaway PostgreSQL server spends, for benchmarks that set it beside their rates: the
// postmaster's own, its reaped children's and each live backend's, read from Linux's /proc.
import { existsSync, readdirSync, readFileSync } from 'node:fs';

/**
 * CPU milliseconds the server has spent so far: the postmaster's own and its reaped children's,
 * plus each live backend's (Linux /proc, clock ticks of 10 ms; NaN elsewhere). Read before and
 * after a measured window: the difference is the window's share, the bench's own queries included.
 */
export function serverCpuMs(postmaster: number): number {
  if (!existsSync('/proc/self/stat')) return NaN;
  /** The fields after the command's closing parenthesis: [0] is field 3 (state), [1] the parent. */
  const stat = (pid: string): string[] | undefined => {
    try {
      return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    } catch {
      return undefined; // exited between the listing and the read
    }
  };
  const field = (f: string[], n: number): number => Number(f[n - 3]);
  const own = stat(String(postmaster));
  let ticks = own === undefined ? 0 : [14, 15, 16, 17].reduce((t, n) => t + field(own, n), 0);
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    const f = stat(pid);
    if (f !== undefined && field(f, 4) === postmaster) ticks += field(f, 14) + field(f, 15);
  }
  return ticks * 10;
}
