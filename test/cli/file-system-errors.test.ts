// Typed file-system refusals from the real binary: a read-only root (a real read-only mount in a
// private mount namespace), a missing root for a read command (refused, not created), a root that
// is a file; `export --out` failing mid-stream on a read and on a write (typed, no stack trace, no
// leftover .partial), and refusing a folder as its file; `import` racing a writer (IMPORT_CONFLICT,
// not a driver's constraint code); a malformed configured secret refused when `serve` starts.
import Database from 'better-sqlite3';
import { spawn, spawnSync } from 'node:child_process';
import {
  closeSync,
  constants,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Write } from '../../src/log/write.js';
import { openWorld } from '../../src/world/world.js';
import { cli } from './in-process.js';

const BIN = resolve('dist/src/cli/main.js');
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function dir(): string {
  const d = mkdtempSync(join(tmpdir(), 'twinworld-fs-'));
  dirs.push(d);
  return d;
}

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

function tw(args: string[], options: { env?: Record<string, string>; input?: string } = {}): Run {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    encoding: 'utf8',
    input: options.input ?? '',
    timeout: 60_000,
    env: { ...process.env, ...(options.env ?? {}) },
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** A typed refusal on stderr, exit 1, no stack trace and no driver or errno code as the code. */
function refused(run: Run, code: string): void {
  expect(run.stderr, run.stderr).toMatch(new RegExp(`^error ${code}: `));
  expect(run.status).toBe(1);
  expect(run.stderr).not.toMatch(/\n\s+at /);
  expect(run.stderr).not.toMatch(/^error (SQLITE_|E[A-Z]+:|INTERNAL)/);
}

const write = (id: string) =>
  JSON.stringify({
    operation: 'customer.create',
    subjectType: 'customer',
    subjectId: id,
    fields: { name: id },
  });

/** A root whose twin "stripe" holds `count` entries, written through the library (setup only). */
async function twinOf(count: number): Promise<string> {
  const root = join(dir(), 'world');
  const world = openWorld({ root });
  const twin = world.twin('stripe');
  for (let i = 0; i < count; i += 500) {
    await twin.applyAtomic(() =>
      Array.from(
        { length: Math.min(500, count - i) },
        (_, k) => JSON.parse(write(`cus_${i + k}`)) as Write,
      ),
    );
  }
  await world.close();
  return root;
}

/**
 * Runs the binary with `root` mounted read-only. As root, permissions do not stop a write, so a
 * real read-only bind mount is made in a private mount namespace (unshare); other users get a
 * folder without write permission.
 */
function readOnly(root: string, args: string[]): Run {
  if (process.getuid?.() !== 0) {
    spawnSync('chmod', ['-R', 'a-w', root]);
    try {
      return tw(args);
    } finally {
      spawnSync('chmod', ['-R', 'u+w', root]);
    }
  }
  const script = 'mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" && shift && exec "$@"';
  const r = spawnSync(
    'unshare',
    ['-rm', 'sh', '-c', script, 'sh', root, process.execPath, BIN, ...args],
    { encoding: 'utf8', timeout: 60_000 },
  );
  if (r.error !== undefined || /unshare: |mount: /.test(r.stderr))
    throw new Error(
      `could not mount ${root} read-only for the test: ${r.stderr || String(r.error)}`,
    );
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('world roots', () => {
  it('a read-only root: writes and reads are ROOT_READ_ONLY, saying what to do', () => {
    const d = dir();
    const root = join(d, 'world');
    expect(tw(['write', 'stripe', '--root', root, '--data', write('cus_1')]).status).toBe(0);
    const w = readOnly(root, ['write', 'stripe', '--root', root, '--data', write('cus_2')]);
    refused(w, 'ROOT_READ_ONLY');
    expect(w.stderr).toContain('make it writable');
    refused(
      readOnly(root, ['write', 'other', '--root', root, '--data', write('cus_3')]),
      'ROOT_READ_ONLY',
    );
    refused(readOnly(root, ['log', 'stripe', '--root', root]), 'ROOT_READ_ONLY');
    refused(readOnly(root, ['deliveries', '--root', root]), 'ROOT_READ_ONLY');
    // a new root under a read-only folder cannot be made
    refused(
      readOnly(d, ['write', 'stripe', '--root', join(d, 'fresh'), '--data', write('cus_4')]),
      'ROOT_READ_ONLY',
    );
    // nothing was changed meanwhile
    expect(JSON.parse(tw(['hash', 'stripe', '--root', root, '--json']).stdout).entries).toBe(1);
  });

  it('a missing root for a read command is refused and not created', () => {
    const root = join(dir(), 'typo');
    for (const cmd of [['deliveries'], ['attempts', 'dlv_1'], ['triggers', '--prune', '30']]) {
      const r = tw([...cmd, '--root', root]);
      refused(r, 'ROOT_NOT_FOUND');
      expect(r.stderr).toContain('check --root');
    }
    for (const cmd of ['log', 'state', 'hash', 'export'])
      refused(tw([cmd, 'stripe', '--root', root]), 'ROOT_NOT_FOUND');
    expect(existsSync(root)).toBe(false);
  });

  // Node's recursive mkdir spun forever at full CPU there: /proc answers ENOENT for a new folder.
  it.skipIf(!existsSync('/proc/self'))(
    'a root where no folder can be made (/proc) is refused, not spun on',
    () => {
      const r = tw([
        'write',
        'stripe',
        '--root',
        '/proc/twinworld-no-root/world',
        '--data',
        write('cus_1'),
      ]);
      refused(r, 'ROOT_READ_ONLY');
      expect(r.stderr).toContain(
        'cannot create the world root /proc/twinworld-no-root/world in /proc: the folder does not exist or takes no new files (ENOENT); pass a --root on a disk',
      );
    },
  );

  it('a root that is a file, or below one, is ROOT_NOT_A_FOLDER', () => {
    const d = dir();
    const file = join(d, 'notes.txt');
    writeFileSync(file, 'not a world');
    refused(tw(['write', 'stripe', '--root', file, '--data', write('cus_1')]), 'ROOT_NOT_A_FOLDER');
    refused(
      tw(['write', 'stripe', '--root', join(file, 'world'), '--data', write('cus_1')]),
      'ROOT_NOT_A_FOLDER',
    );
    refused(tw(['deliveries', '--root', file]), 'ROOT_NOT_A_FOLDER');
    expect(statSync(file).isFile()).toBe(true);
  });
});

describe('export --out failing mid-stream', () => {
  async function bigTwin(): Promise<string> {
    return twinOf(3000);
  }

  it('a write that fails midway (the file size limit) is EXPORT_FAILED, and no .partial is left', async () => {
    const root = await bigTwin();
    const out = join(dir(), 'out');
    mkdirSync(out);
    // SIGXFSZ ignored (inherited through exec), so writing past `ulimit -f` fails with EFBIG.
    const r = spawnSync(
      'sh',
      [
        '-c',
        `trap '' XFSZ; ulimit -f 64; exec "${process.execPath}" "${BIN}" export stripe --root "${root}" --out "${join(out, 'stripe.jsonl')}"`,
      ],
      { encoding: 'utf8', timeout: 60_000 },
    );
    refused({ status: r.status, stdout: r.stdout, stderr: r.stderr }, 'EXPORT_FAILED');
    expect(r.stderr).toMatch(/stopped after \d+ entries: writing .* failed \(EFBIG/);
    expect(readdirSync(out)).toEqual([]);
  });

  it('a read that fails midway (a damaged page of the twin) is EXPORT_FAILED, and no .partial is left', async () => {
    const root = await bigTwin();
    const file = join(root, 'twins', 'stripe.db');
    const db = new Database(file);
    db.pragma('wal_checkpoint(TRUNCATE)');
    // A leaf page of the entries table past its first rows, overwritten with garbage.
    const pages = db
      .prepare(
        "SELECT pageno FROM dbstat WHERE name = 'entries' AND pagetype = 'leaf' ORDER BY pageno",
      )
      .pluck()
      .all() as number[];
    const pageSize = db.pragma('page_size', { simple: true }) as number;
    db.close();
    expect(pages.length).toBeGreaterThan(10);
    const victim = pages[Math.floor(pages.length * 0.6)]!;
    const fd = openSync(file, 'r+');
    writeSync(fd, Buffer.alloc(pageSize, 0xa5), 0, pageSize, (victim - 1) * pageSize);
    closeSync(fd);
    const out = join(dir(), 'out');
    mkdirSync(out);
    const r = tw(['export', 'stripe', '--root', root, '--out', join(out, 'stripe.jsonl')]);
    refused(r, 'EXPORT_FAILED');
    expect(r.stderr).toMatch(/stopped after \d+ entries: reading the twin's log failed/);
    expect(readdirSync(out)).toEqual([]);
  });
});

describe('export --out naming no file', () => {
  it('a folder is refused at --out before the world opens; - is stdout, not a file named "-"', async () => {
    const root = await twinOf(3);
    const out = join(dir(), 'exports');
    mkdirSync(out);
    // Was: EXPORT_FAILED "stopped after 3 entries: writing … failed (EISDIR; is the disk full…)".
    const r = tw(['export', 'stripe', '--root', root, '--out', out]);
    refused(r, 'INVALID_ARGUMENT');
    expect(r.stderr).toContain(
      `--out ${out} is a folder; give the file to write, e.g. --out ${join(out, 'stripe.jsonl')} (at out)`,
    );
    expect(readdirSync(out)).toEqual([]);
    const cwd = dir();
    const dash = spawnSync(
      process.execPath,
      [BIN, 'export', 'stripe', '--root', root, '--out', '-'],
      {
        cwd,
        encoding: 'utf8',
        timeout: 60_000,
      },
    );
    expect(dash.stderr).toBe('');
    expect(dash.status).toBe(0);
    expect(
      dash.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).seq),
    ).toEqual([1, 2, 3]);
    expect(readdirSync(cwd)).toEqual([]);
  });
});

describe('export --out naming what is not a plain file', () => {
  it('a link is written through, a pipe in place: neither is replaced by a file of its own', async () => {
    const root = await twinOf(3);
    const whole = (await cli(['export', 'stripe', '--root', root])).stdout;
    const d = dir();
    // Was: the link itself replaced by a file, its target left as it was.
    const real = join(d, 'real.jsonl');
    writeFileSync(real, 'old\n');
    symlinkSync(real, join(d, 'link.jsonl'));
    const linked = await cli(['export', 'stripe', '--root', root, '--out', join(d, 'link.jsonl')]);
    expect(linked.stderr).toBe('');
    expect(lstatSync(join(d, 'link.jsonl')).isSymbolicLink()).toBe(true);
    expect(readFileSync(real, 'utf8')).toBe(whole);
    // Was: the pipe renamed over (for /dev/full or /dev/stdout, the device), its reader left
    // with nothing. The reader opens without waiting; the export's few lines fit the pipe.
    const pipe = join(d, 'pipe');
    expect(spawnSync('mkfifo', [pipe]).status).toBe(0);
    const reader = openSync(pipe, constants.O_RDONLY | constants.O_NONBLOCK);
    try {
      const piped = await cli(['export', 'stripe', '--root', root, '--out', pipe]);
      expect(piped.stderr).toBe('');
      expect(piped.status).toBe(0);
      const buffer = Buffer.alloc(64 * 1024);
      const n = readSync(reader, buffer);
      expect(buffer.subarray(0, n).toString('utf8')).toBe(whole);
      expect(lstatSync(pipe).isFIFO()).toBe(true);
    } finally {
      closeSync(reader);
    }
  });
});

describe('import racing a writer', () => {
  it('is IMPORT_CONFLICT with how much was kept, never the store’s constraint code', async () => {
    const d = dir();
    const source = await twinOf(40_000);
    const file = join(d, 'log.jsonl');
    expect(tw(['export', 'stripe', '--root', source, '--out', file]).status).toBe(0);
    const target = join(d, 'target');
    // The import starts into an empty twin; a writer starts appending to it while it runs.
    const importing = new Promise<Run>((done) => {
      const child = spawn(process.execPath, [BIN, 'import', 'stripe', file, '--root', target], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
      child.once('exit', (status) => done({ status, stdout, stderr }));
    });
    // The writer starts once the import has committed its first batch, so they race mid-import.
    const file2 = join(target, 'twins', 'stripe.db');
    for (let waited = 0; waited < 30_000; waited += 20) {
      if (existsSync(file2)) {
        const db = new Database(file2, { readonly: true, fileMustExist: true });
        let head = 0;
        try {
          head = db.prepare('SELECT COALESCE(MAX(seq), 0) FROM entries').pluck().get() as number;
        } catch {
          // the importer has not made its tables yet
        } finally {
          db.close();
        }
        if (head >= 1000) break;
      }
      await new Promise((r) => setTimeout(r, 20));
    }
    const loop = spawn(
      process.execPath,
      [resolve('dist/test/support/append-worker.js'), target, 'stripe'],
      { stdio: ['ignore', 'ignore', 'inherit'] },
    );
    const imported = await importing;
    loop.kill('SIGKILL');
    refused(imported, 'IMPORT_CONFLICT');
    expect(imported.stderr).toMatch(
      /another process appended to it while the import ran.*; \d+ entries were kept/,
    );
  });
});

describe('serve checks every configured secret at startup', () => {
  it('a Standard Webhooks secret that is not whsec_ + base64 is INVALID_CONFIG naming the variable, never the value', () => {
    const root = join(dir(), 'world');
    const r = tw(
      [
        'serve',
        '--endpoint',
        'hooks:standard-webhooks=TW_BAD_SECRET',
        '--port',
        '0',
        '--root',
        root,
      ],
      { env: { TW_BAD_SECRET: 'whsec_not base64!!' } },
    );
    refused(r, 'INVALID_CONFIG');
    expect(r.stderr).toContain('TW_BAD_SECRET');
    expect(r.stderr).toContain('base64');
    expect(r.stderr).not.toContain('not base64!!');
    expect(existsSync(root)).toBe(false);
  });
});
