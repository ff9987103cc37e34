// The backends every conformance suite runs against, each with a fresh home.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryBackend } from '../../src/storage/memory/memory-backend.js';
import { SqliteBackend } from '../../src/storage/sqlite/sqlite-backend.js';
import type { StorageBackend } from '../../src/storage/port.js';

export interface BackendCase {
  readonly name: string;
  /** A fresh backend; `reopen` gives a second handle on the same storage where that exists. */
  create(): { backend: StorageBackend; reopen: () => StorageBackend; cleanup: () => void };
}

export function tempDir(prefix = 'twinworld-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export const backends: BackendCase[] = [
  {
    name: 'memory',
    create() {
      const backend = new MemoryBackend();
      return { backend, reopen: () => backend, cleanup: () => {} };
    },
  },
  {
    name: 'sqlite',
    create() {
      const dir = tempDir();
      return {
        backend: new SqliteBackend(dir),
        reopen: () => new SqliteBackend(dir),
        cleanup: () => rmSync(dir, { recursive: true, force: true }),
      };
    },
  },
];
