// A run lock on one machine: a lock file per key holding the holder's process id. A holder that
// died (its pid gone) leaves a stale file that the next taker replaces; the replacement is
// claimed through an exclusive marker so two takers of one stale lock never both win.
import { createHash } from 'node:crypto';
import { link, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describeValue, TwinError } from '../../errors.js';
import type { RunLock, RunLockHold } from '../run-lock.js';

function errno(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** Whether process `pid` exists (a process of another user still counts). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return errno(error) === 'EPERM';
  }
}

/** Creates `file` holding this process's id, atomically with its content; false if it exists. */
async function create(file: string): Promise<boolean> {
  const temp = `${file}.${process.pid}.tmp`;
  await writeFile(temp, String(process.pid));
  try {
    await link(temp, file);
    return true;
  } catch (error) {
    if (errno(error) === 'EEXIST') return false;
    throw error;
  } finally {
    await rm(temp, { force: true });
  }
}

async function holderOf(file: string): Promise<number | undefined> {
  try {
    const pid = Number(await readFile(file, 'utf8'));
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
  } catch (error) {
    if (errno(error) === 'ENOENT') return undefined;
    throw error;
  }
}

export class FileRunLock implements RunLock {
  constructor(private readonly dir: string) {
    // Anything else reached mkdir at the first run, far from here: a lock never taken.
    if (typeof dir !== 'string' || dir === '')
      throw new TwinError(
        'INVALID_ARGUMENT',
        `new FileRunLock(dir): dir must be a folder path, got ${describeValue(dir)}`,
        { path: 'dir' },
      );
  }

  async acquire(key: string): Promise<RunLockHold | undefined> {
    await mkdir(this.dir, { recursive: true });
    const file = join(
      this.dir,
      `${createHash('sha256').update(key).digest('hex').slice(0, 40)}.lock`,
    );
    // Twice at most: once as found, once after replacing a dead holder's file.
    for (let round = 0; round < 2; round++) {
      if (await create(file)) return { release: () => this.release(file) };
      const holder = await holderOf(file);
      if (holder !== undefined && alive(holder)) return undefined;
      const marker = `${file}.${holder ?? 'none'}.takeover`;
      if (!(await create(marker))) {
        // A taker that died mid-takeover would block the key for good: its marker goes, and the
        // key is tried again on the next attempt.
        const taker = await holderOf(marker);
        if (taker === undefined || !alive(taker)) await rm(marker, { force: true });
        return undefined;
      }
      try {
        if ((await holderOf(file)) === holder) await rm(file, { force: true });
      } finally {
        await rm(marker, { force: true });
      }
    }
    return undefined;
  }

  private async release(file: string): Promise<void> {
    if ((await holderOf(file)) === process.pid) await rm(file, { force: true });
  }
}
