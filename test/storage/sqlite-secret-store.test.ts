// The root's secret file under real concurrency: several processes setting and rotating at once
// lose nothing, a process SIGKILLed mid-change leaves the file whole, the file is 0600, and a
// vault resolver in front answers first. Real child processes, a real SQLite file.
import Database from 'better-sqlite3';
import { spawn } from 'node:child_process';
import { existsSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SqliteSecretStore } from '../../src/storage/sqlite/sqlite-secret-store.js';
import { openWorld } from '../../src/world/world.js';
import { tempDir } from '../support/backends.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
function freshRoot(): string {
  const dir = tempDir('twinworld-secrets-');
  dirs.push(dir);
  return dir;
}

function worker(root: string, mode: string, label: string, count: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['dist/test/support/secret-worker.js', root, mode, label, String(count)],
      { stdio: ['ignore', 'ignore', 'inherit'] },
    );
    child.on('error', reject);
    child.on('exit', (code) => resolve(code ?? -1));
  });
}

describe('the SQLite secret file', () => {
  it('6 processes × 100 sets at once keep all 600 secrets', async () => {
    const root = freshRoot();
    const labels = ['a', 'b', 'c', 'd', 'e', 'f'];
    expect(await Promise.all(labels.map((l) => worker(root, 'set', l, 100)))).toEqual([
      0, 0, 0, 0, 0, 0,
    ]);
    // Read back through a world on the root, as the dispatcher resolves them.
    const world = openWorld({ root });
    let kept = 0;
    for (const l of labels)
      for (let i = 0; i < 100; i++)
        if (((await world.secrets.resolve(`${l}/${i}`, 0))[0] ?? '') === `secret-${l}-${i}`) kept++;
    expect(kept).toBe(600);
    await world.close();
  });

  it('4 processes × 50 rotations of one ref keep every rotated secret: no rotation is lost', async () => {
    const root = freshRoot();
    expect(
      await Promise.all(['a', 'b', 'c', 'd'].map((l) => worker(root, 'rotate', l, 50))),
    ).toEqual([0, 0, 0, 0]);
    const world = openWorld({ root });
    const secrets = await world.secrets.resolve('shared', 1_000);
    expect(secrets).toHaveLength(200);
    expect(new Set(secrets).size).toBe(200);
    // each process's rotations appear in its own order, newest first
    for (const l of ['a', 'b', 'c', 'd']) {
      const mine = secrets
        .filter((s) => s.startsWith(`rotated-${l}-`))
        .map((s) => Number(s.split('-')[2]));
      expect(mine).toEqual(Array.from({ length: 50 }, (_, i) => 49 - i));
    }
    await world.close();
  });

  it('a process SIGKILLed in the middle of changes leaves a whole file that others keep using', async () => {
    const root = freshRoot();
    const child = spawn(
      process.execPath,
      ['dist/test/support/secret-worker.js', root, 'forever', 'k', '0'],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
    await new Promise((resolve) => setTimeout(resolve, 300));
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));
    const db = new Database(join(root, 'secrets.db'));
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    db.close();
    const store = new SqliteSecretStore(root);
    let found = 0;
    for (let i = 0; i < 50; i++) {
      const secrets = store.resolve(`k/${i}`, 0);
      expect(secrets.length).toBeLessThanOrEqual(1);
      if (secrets.length === 1) {
        // the last value set before the kill, whole: `secret-k-<n>` with n ≡ i (mod 50)
        expect(Number(secrets[0]!.slice('secret-k-'.length)) % 50).toBe(i);
        found++;
      }
    }
    expect(found).toBe(50);
    store.set('after', 'whsec_after-the-kill');
    expect(store.resolve('after', 0)).toEqual(['whsec_after-the-kill']);
    store.close();
  });

  it('is created 0600 on first use only, and survives reopening', async () => {
    const root = freshRoot();
    const world = openWorld({ root });
    await world
      .twin('stripe')
      .applyWrite({ operation: 'x.create', subjectType: 'x', subjectId: '1' });
    expect(existsSync(join(root, 'secrets.db'))).toBe(false);
    await world.secrets.set('ep', 'whsec_kept');
    await world.close();
    expect(statSync(join(root, 'secrets.db')).mode & 0o777).toBe(0o600);
    const again = openWorld({ root });
    expect(await again.secrets.resolve('ep', 0)).toEqual(['whsec_kept']);
    await again.close();
  });

  it('imports a secrets.json left by an earlier version once, then removes it', async () => {
    const root = freshRoot();
    writeFileSync(
      join(root, 'secrets.json'),
      JSON.stringify({
        'stripe/we_1': [{ secret: 'whsec_new' }, { secret: 'whsec_old', expiresAt: 5_000 }],
      }),
      { mode: 0o600 },
    );
    const store = new SqliteSecretStore(root);
    expect(store.resolve('stripe/we_1', 0)).toEqual(['whsec_new', 'whsec_old']);
    expect(store.resolve('stripe/we_1', 5_000)).toEqual(['whsec_new']);
    expect(existsSync(join(root, 'secrets.json'))).toBe(false);
    store.close();
  });
});

describe('the write lock a change takes before it reads', () => {
  /** Another connection to the file that takes the write lock and writes a rotation of its own. */
  function holdLock(root: string, ref: string): Database.Database {
    const other = new Database(join(root, 'secrets.db'));
    other.exec('BEGIN IMMEDIATE');
    other
      .prepare(
        'INSERT INTO secrets (ref, n, secret, expires_at) SELECT ?, COALESCE(MAX(n), 0) + 1, ?, NULL FROM secrets WHERE ref = ?',
      )
      .run(ref, 'held', ref);
    return other;
  }

  it('a rotation waits out its busy timeout for a lock another connection holds, then fails STORE_BUSY, changing nothing', () => {
    const root = freshRoot();
    const store = new SqliteSecretStore(root, { busyTimeoutMs: 1_000 });
    store.set('ep', 'first');
    const other = holdLock(root, 'ep');
    try {
      const started = performance.now();
      let error: unknown;
      try {
        store.rotate('ep', 'second', 1_000, 60_000);
      } catch (e) {
        error = e;
      }
      const waited = performance.now() - started;
      expect(error).toMatchObject({ code: 'STORE_BUSY', path: 'root' });
      expect((error as Error).message).toContain('1000 ms');
      // It asked for the lock before reading, so SQLite's busy handler made it wait: a deferred
      // transaction reads first and fails the moment it needs to write, without waiting.
      expect(waited).toBeGreaterThanOrEqual(900);
    } finally {
      other.exec('ROLLBACK');
      other.close();
    }
    expect(store.resolve('ep', 1_000)).toEqual(['first']);
    store.rotate('ep', 'second', 1_000, 60_000);
    expect(store.resolve('ep', 1_000)).toEqual(['second', 'first']);
    store.close();
  });

  it('a rotation that waits for another process holding the lock keeps both rotations once it lets go', async () => {
    const root = freshRoot();
    const store = new SqliteSecretStore(root, { busyTimeoutMs: 20_000 });
    store.set('ep', 'first');
    // The holder is another process: this thread blocks inside the rotation while it holds the lock.
    const holder = spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import Database from 'better-sqlite3';
         const db = new Database(${JSON.stringify(join(root, 'secrets.db'))});
         db.exec('BEGIN IMMEDIATE');
         db.prepare("INSERT INTO secrets (ref, n, secret, expires_at) SELECT 'ep', MAX(n) + 1, 'held', NULL FROM secrets WHERE ref = 'ep'").run();
         process.stdout.write('locked\\n');
         setTimeout(() => { db.exec('COMMIT'); db.close(); }, 300);`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const exited = new Promise<number | null>((resolve) => holder.on('exit', resolve));
    await new Promise<void>((resolve, reject) => {
      holder.stdout.on('data', (chunk: Buffer) => {
        if (chunk.toString().includes('locked')) resolve();
      });
      holder.on('error', reject);
      holder.on('exit', (code) => reject(new Error(`the holder exited (${code}) before locking`)));
    });
    // Waits for the holder's commit, then reads what it wrote: its rotation is not lost.
    store.rotate('ep', 'second', 1_000, 60_000);
    expect(await exited).toBe(0);
    expect(store.resolve('ep', 1_000)).toEqual(['second', 'held', 'first']);
    store.close();
  });
});

describe('a vault resolver in front of the store', () => {
  it('answers first; undefined falls back to the store; a malformed answer is INVALID_CONFIG', async () => {
    const asked: string[] = [];
    const world = openWorld({
      root: ':memory:',
      resolveSecret: async (ref) => {
        asked.push(ref);
        if (ref === 'vault/ep') return ['whsec_from-the-vault'];
        if (ref === 'vault/bad') return [''] as string[];
        return undefined;
      },
    });
    await world.secrets.set('local/ep', 'whsec_local');
    expect(await world.secrets.resolve('vault/ep', 0)).toEqual(['whsec_from-the-vault']);
    expect(await world.secrets.resolve('local/ep', 0)).toEqual(['whsec_local']);
    await expect(world.secrets.resolve('vault/bad', 0)).rejects.toMatchObject({
      code: 'INVALID_CONFIG',
      path: 'resolveSecret',
    });
    expect(asked).toEqual(['vault/ep', 'local/ep', 'vault/bad']);
    await world.close();
  });
});
