// A full disk is DISK_FULL with what to do, never SQLITE_FULL, SQLITE_IOERR_SHMSIZE or a read-only
// root: the real binary on a real, tiny tmpfs (mounted in a private mount namespace), and the
// mapping itself through a real SQLite failure (PRAGMA max_page_count).
import Database from 'better-sqlite3';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { storageRefusal } from '../../src/world/root.js';

const BIN = resolve('dist/src/cli/main.js');
const dir = mkdtempSync(join(tmpdir(), 'twinworld-disk-full-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const customer = (id: string, bytes = 0) =>
  JSON.stringify({
    operation: 'customer.create',
    subjectType: 'customer',
    subjectId: id,
    fields: { name: 'x'.repeat(bytes) },
  });

/** Runs `script` (sh) with a 300 KiB tmpfs at $M, in a mount namespace of its own. */
function onTinyDisk(script: string): { status: number | null; stdout: string; stderr: string } {
  const mount = join(dir, 'mnt');
  rmSync(mount, { recursive: true, force: true });
  spawnSync('mkdir', ['-p', mount]);
  const r = spawnSync(
    'unshare',
    ['-m', 'sh', '-c', 'mount -t tmpfs -o size=300k tmpfs "$M" && exec sh -c "$S"'],
    {
      encoding: 'utf8',
      timeout: 60_000,
      env: { ...process.env, M: mount, S: script, NODE: process.execPath, BIN },
    },
  );
  if (r.error !== undefined || /unshare: |mount: /.test(r.stderr))
    throw new Error(`could not mount a tmpfs for the test: ${r.stderr || String(r.error)}`);
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('a full disk', () => {
  it('a write bigger than the disk is DISK_FULL (SQLITE_FULL underneath), exit 1, nothing kept', () => {
    const big = join(dir, 'big.json');
    writeFileSync(big, customer('cus_big', 400_000));
    const r = onTinyDisk(
      `"$NODE" "$BIN" write stripe --root "$M/w" < ${big}; echo "exit $?"; "$NODE" "$BIN" log stripe --root "$M/w" --json`,
    );
    expect(r.stderr).toMatch(
      /^error DISK_FULL: the disk holding the world at .*\/w is full \(SQLITE_FULL\); free space there/,
    );
    expect(r.stdout).toMatch(/^exit 1\n\[\]\n$/);
  });

  it('a disk filled by something else is DISK_FULL for the next twin opened (WAL index: SQLITE_IOERR_SHMSIZE)', () => {
    const r = onTinyDisk(
      [
        `"$NODE" "$BIN" write stripe --root "$M/w" -d '${customer('c1')}' > /dev/null`,
        'dd if=/dev/zero of="$M/fill" bs=1k count=400 2>/dev/null',
        `"$NODE" "$BIN" write slack --root "$M/w" -d '${customer('c2')}'`,
        'echo "exit $?"',
      ].join('; '),
    );
    expect(r.stderr).toMatch(/^error DISK_FULL: .*is full \(SQLITE_(IOERR_SHMSIZE|FULL)\)/);
    expect(r.stderr).not.toMatch(/ROOT_READ_ONLY|\n\s+at /);
    expect(r.stdout).toBe('exit 1\n');
  });

  it('maps a real SQLITE_FULL (max_page_count reached) to DISK_FULL naming the root', () => {
    const db = new Database(join(dir, 'capped.db'));
    db.pragma('max_page_count = 8');
    db.exec('CREATE TABLE t (v TEXT)');
    let caught: unknown;
    try {
      db.prepare('INSERT INTO t VALUES (?)').run('x'.repeat(100_000));
    } catch (error) {
      caught = error;
    }
    db.close();
    expect((caught as { code?: string }).code).toBe('SQLITE_FULL');
    const refusal = storageRefusal(caught, '/srv/world');
    expect(refusal).toMatchObject({
      code: 'DISK_FULL',
      path: 'root',
      details: { code: 'SQLITE_FULL' },
    });
    expect(refusal!.message).toContain('the disk holding the world at /srv/world is full');
  });
});
