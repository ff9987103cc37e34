// The backends every conformance suite runs against, each with a fresh home; the durable ones as
// homes child processes can open by spec; and the small helpers tests over them share (a
// temporary folder, draining a streamed read).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryBackend } from '../../src/storage/memory/memory-backend.js';
import { SqliteBackend } from '../../src/storage/sqlite/sqlite-backend.js';
import type { StorageBackend } from '../../src/storage/port.js';
import { PostgresBackend } from '../../src/storage/postgres/index.js';
import { postgresUrl } from '../storage/postgres-url.js';

export interface BackendCase {
  readonly name: string;
  /** Whether a second backend on the same home (`reopen`) is another handle, not the same object. */
  readonly durable: boolean;
  /** A fresh backend; `reopen` gives a second handle on the same storage where that exists. */
  create(): { backend: StorageBackend; reopen: () => StorageBackend; cleanup: () => void };
}

export function tempDir(prefix = 'twinworld-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** Drains a streamed read (Node 20 has no Array.fromAsync). */
export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

export const backends: BackendCase[] = [
  {
    name: 'memory',
    durable: false,
    create() {
      const backend = new MemoryBackend();
      return { backend, reopen: () => backend, cleanup: () => {} };
    },
  },
  {
    name: 'sqlite',
    durable: true,
    create() {
      const dir = tempDir();
      return {
        backend: new SqliteBackend(dir),
        reopen: () => new SqliteBackend(dir),
        cleanup: () => rmSync(dir, { recursive: true, force: true }),
      };
    },
  },
  {
    // One throwaway server per run (test/storage/postgres.global-setup.ts); a fresh home is a
    // fresh world name in its database.
    name: 'postgres',
    durable: true,
    create() {
      const world = `t${++worlds}_${process.pid}_${Date.now().toString(36)}`;
      const url = postgresUrl();
      return {
        backend: new PostgresBackend(url, world),
        reopen: () => new PostgresBackend(url, world),
        cleanup: () => {},
      };
    },
  },
];

let worlds = 0;

export interface Home {
  readonly name: string;
  /** A fresh, empty home as a store spec (`openWorldAt` in ./world-at.ts, or `--store`), and how to remove it. */
  fresh(): { spec: string; cleanup: () => void };
}

/** The durable backends, each as a home that child processes open by its spec. */
export const homes: Home[] = [
  {
    name: 'sqlite',
    fresh() {
      const dir = tempDir();
      return { spec: dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
    },
  },
  {
    name: 'postgres',
    fresh() {
      const url = new URL(postgresUrl());
      url.searchParams.set('world', `h${++worlds}_${process.pid}_${Date.now().toString(36)}`);
      return { spec: url.toString(), cleanup: () => {} };
    },
  },
];
