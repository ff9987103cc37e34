// What a world root remembers of each twin's log outside the twin's own database, so a database
// that was emptied, truncated or swapped for an older copy is noticed when the twin is opened
// instead of silently restarting at seq 1. One small file per twin, <root>/twins/<twin>.head:
// {"backend","twin","seq","hash"} — an entry the database is known to have held and its chain hash.
// It is written when a twin first commits in a process, every MARK_EVERY entries after that and
// when the twin closes, never on every commit (a file write would cost more than the commit).
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { TwinError } from '../errors.js';
import { isChainHash, type ChainHead } from '../log/chain.js';

/** Entries appended in one process between two updates of a twin's mark. */
export const MARK_EVERY = 1024;

export class HeadMarks {
  constructor(
    readonly root: string,
    /** Marks are kept per backend kind: a world opened on another backend has other databases. */
    readonly backend: string,
  ) {}

  file(twin: string): string {
    return join(this.root, 'twins', `${twin}.head`);
  }

  /** The twin's mark, or undefined when the root has none (a new twin, or one from before marks). */
  read(twin: string): ChainHead | undefined {
    const file = this.file(twin);
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw new TwinError(
        'ROOT_READ_ONLY',
        `cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? String(error)}), the root's record of twin "${twin}"'s log; make it readable`,
        { path: 'root' },
      );
    }
    let mark: unknown;
    try {
      mark = JSON.parse(text);
    } catch {
      mark = undefined;
    }
    const m = mark as { backend?: unknown; twin?: unknown; seq?: unknown; hash?: unknown };
    if (
      m === null ||
      typeof m !== 'object' ||
      typeof m.backend !== 'string' ||
      m.twin !== twin ||
      typeof m.seq !== 'number' ||
      !Number.isSafeInteger(m.seq) ||
      m.seq < 1 ||
      !isChainHash(m.hash)
    ) {
      throw new TwinError(
        'TWIN_LOG_MISSING',
        `${file}, the root's record of how far twin "${twin}"'s log reached, is damaged; delete it (the twin's next commit records it again) and check the log with \`twinworld verify ${twin}\``,
        { path: 'root', details: { file } },
      );
    }
    if (m.backend !== this.backend) return undefined;
    return { seq: m.seq, hash: m.hash };
  }

  /** Records that the twin's log reached `head`; never lowers what another process recorded. */
  write(twin: string, head: ChainHead): void {
    const known = this.read(twin);
    if (known !== undefined && known.seq >= head.seq) return;
    const file = this.file(twin);
    const temp = `${file}.${process.pid}.tmp`;
    try {
      // Not recursive: a root removed meanwhile is not made again — but that is said, not skipped.
      mkdirSync(join(this.root, 'twins'));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT')
        throw new TwinError(
          'ROOT_NOT_FOUND',
          `the world root ${this.root} was removed while twin "${twin}" was open, so how far its log reached (entry ${head.seq}) could not be recorded; the commits themselves are kept only if its database still exists — restore the root, or export the twin while it is still open`,
          { path: 'root', details: { twin, seq: head.seq } },
        );
      if (code !== 'EEXIST') throw this.unwritable(twin, file, error);
    }
    try {
      writeFileSync(
        temp,
        `${JSON.stringify({ backend: this.backend, twin, seq: head.seq, hash: head.hash })}\n`,
      );
      renameSync(temp, file);
    } catch (error) {
      throw this.unwritable(twin, file, error);
    }
  }

  private unwritable(twin: string, file: string, error: unknown): TwinError {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    return new TwinError(
      code === 'ENOSPC' ? 'DISK_FULL' : 'ROOT_READ_ONLY',
      `cannot write ${file} (${code}), the root's record of how far twin "${twin}"'s log reached; the commit is kept, but a database later emptied or swapped is noticed only up to the last record — ${code === 'ENOSPC' ? 'free disk space' : 'make the root writable'}`,
      { path: 'root', details: { twin, file } },
    );
  }
}
