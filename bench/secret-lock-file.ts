// The alternative the secret store was measured against (bench/secret-store.ts): the whole JSON
// file rewritten under a lock file — O_EXCL create to take the lock, polling to wait for it, the
// holder's pid inside so a lock left by a dead process can be broken, a temp file, fsync and
// rename to publish. Kept only as the benchmark's baseline; the kernel uses SQLite.
import {
  closeSync,
  existsSync,
  fsyncSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';

const pause = new Int32Array(new SharedArrayBuffer(4));

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export class LockFileSecretStore {
  private readonly file: string;
  private readonly lock: string;

  constructor(root: string) {
    this.file = join(root, 'secrets.json');
    this.lock = join(root, 'secrets.lock');
  }

  private locked<T>(fn: () => T): T {
    for (let waited = 0; ; waited++) {
      try {
        const fd = openSync(this.lock, 'wx', 0o600);
        writeSync(fd, String(process.pid));
        closeSync(fd);
        break;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        // A dead holder's lock is broken only once it is old: a fresh one may be a live
        // process that has not written its pid yet (one of the races this design has to guard).
        let holder = Number.NaN;
        let age = 0;
        try {
          holder = Number(readFileSync(this.lock, 'utf8') || 'NaN');
          age = Date.now() - statSync(this.lock).mtimeMs;
        } catch {
          continue; // released meanwhile
        }
        if (Number.isInteger(holder) && !alive(holder) && age > 10_000)
          rmSync(this.lock, { force: true });
        else Atomics.wait(pause, 0, 0, Math.min(1 + waited, 20));
      }
    }
    try {
      return fn();
    } finally {
      rmSync(this.lock, { force: true });
    }
  }

  private read(): Record<string, { secret: string }[]> {
    return existsSync(this.file)
      ? (JSON.parse(readFileSync(this.file, 'utf8')) as Record<string, { secret: string }[]>)
      : {};
  }

  set(ref: string, secret: string): void {
    this.locked(() => {
      const data = this.read();
      data[ref] = [{ secret }];
      const tmp = `${this.file}.${process.pid}.tmp`;
      const fd = openSync(tmp, 'w', 0o600);
      writeSync(fd, JSON.stringify(data));
      fsyncSync(fd);
      closeSync(fd);
      renameSync(tmp, this.file);
    });
  }

  resolve(ref: string): string[] {
    return (this.read()[ref] ?? []).map((s) => s.secret);
  }
}
