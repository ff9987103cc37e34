// CLI edges, in-process: a raw file-system error at the CLI's edge is a typed refusal in words; an
// import that appends nothing leaves no twin (nor root) behind; verify blames the entry that was
// edited, not the newest one after it; a root given by --store that cannot be made is refused
// talking of --store, not --root.
import Database from 'better-sqlite3';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { printError } from '../../src/cli/output.js';
import { cli } from './in-process.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function dir(): string {
  const d = mkdtempSync(join(tmpdir(), 'twinworld-edges-'));
  dirs.push(d);
  return d;
}

const write = (id: string) =>
  JSON.stringify({
    operation: 'customer.create',
    subjectType: 'customer',
    subjectId: id,
    fields: {},
  });

/** What the CLI's edge prints for `error`, as text or JSON. */
async function printed(error: unknown, json: boolean): Promise<{ status: number; stderr: string }> {
  const stderr = new PassThrough();
  let text = '';
  stderr.on('data', (c: Buffer) => (text += c.toString()));
  const status = await printError(
    {
      stdin: new PassThrough(),
      stdout: new PassThrough(),
      stderr,
      isTTY: { stdin: false, stdout: false, stderr: false },
    },
    error,
    json,
  );
  return { status, stderr: text };
}

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('did not throw');
}

describe('a raw file-system error at the CLI edge', () => {
  it('is FILE_ACCESS_FAILED naming the path and the reason in words, never Node’s message', async () => {
    const d = dir();
    const missing = join(d, 'nothing.json');
    const r = await printed(
      thrown(() => readFileSync(missing)),
      false,
    );
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(
      `error FILE_ACCESS_FAILED: open ${missing} failed: there is no such file (ENOENT); fix that at the path named (create the folder, give this user access, free space) and run the command again\n`,
    );
    const folder = await printed(
      thrown(() => writeFileSync(d, '')),
      true,
    );
    expect(JSON.parse(folder.stderr)).toMatchObject({
      error: 'FILE_ACCESS_FAILED',
      message: expect.stringContaining(`open ${d} failed: it is a folder, not a file (EISDIR)`),
      details: { code: 'EISDIR', syscall: 'open' },
    });
    const file = join(d, 'file');
    writeFileSync(file, '');
    const notDir = await printed(
      thrown(() => writeFileSync(join(file, 'x'), '')),
      false,
    );
    expect(notDir.stderr).toMatch(
      /^error FILE_ACCESS_FAILED: open .*file\/x failed: a part of the path is a file, not a folder \(ENOTDIR\)/,
    );
  });

  it('leaves an error that is no file-system error as it was', async () => {
    const socket = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), {
      code: 'ECONNREFUSED',
      syscall: 'connect',
    });
    expect((await printed(socket, false)).stderr).toMatch(/^error ECONNREFUSED: /);
  });
});

describe('an import that appends nothing', () => {
  it('leaves no twin and no root behind: a bad first line (refused) or an empty file', async () => {
    const d = dir();
    const root = join(d, 'world');
    writeFileSync(join(d, 'bad.jsonl'), 'not json\n');
    writeFileSync(join(d, 'empty.jsonl'), '\n');
    const bad = await cli(['import', 'stripe', join(d, 'bad.jsonl'), '--root', root]);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(/^error IMPORT_MALFORMED_LINE: .* line 1/);
    expect(existsSync(root)).toBe(false);
    const empty = await cli(['import', 'stripe', join(d, 'empty.jsonl'), '--root', root]);
    expect(empty.status).toBe(0);
    expect(empty.stderr).toContain('holds no entries');
    expect(existsSync(root)).toBe(false);

    // In a world that holds another twin: still no empty twin "stripe".
    expect((await cli(['write', 'github', '--data', write('cus_1'), '--root', root])).status).toBe(
      0,
    );
    expect((await cli(['import', 'stripe', join(d, 'bad.jsonl'), '--root', root])).status).toBe(1);
    expect((await cli(['import', 'stripe', join(d, 'empty.jsonl'), '--root', root])).status).toBe(
      0,
    );
    const state = await cli(['state', 'stripe', '--root', root]);
    expect(state.stderr).toMatch(/^error UNKNOWN_TWIN: no twin "stripe" .*it holds: github/);
  });
});

describe('verify of an entry edited before the newest', () => {
  it('blames the edited entry, which the root’s mark of the newest shows', async () => {
    const root = join(dir(), 'world');
    for (const id of ['cus_1', 'cus_2', 'cus_3'])
      expect((await cli(['write', 'stripe', '--data', write(id), '--root', root])).status).toBe(0);
    const db = new Database(join(root, 'twins', 'stripe.db'));
    const body = (db.prepare('SELECT body FROM entries WHERE seq = 2').get() as { body: string })
      .body;
    db.prepare('UPDATE entries SET body = ? WHERE seq = 2').run(body.replace('cus_2', 'cus_X'));
    db.close();
    const r = await cli(['verify', 'stripe', '--root', root, '--json']);
    expect(r.status).toBe(1);
    expect(r.json()).toMatchObject({ ok: false, problem: { seq: 2, check: 'chain' } });
    const exported = await cli([
      'export',
      'stripe',
      '--root',
      root,
      '--out',
      join(root, 'x.jsonl'),
    ]);
    expect(exported.stderr).toMatch(/^error IMPORT_CHAIN_BROKEN: .*broken at entry 2/);
  });
});

describe('a root named by --store that cannot be made', () => {
  it('is refused talking of the --store URL given, not of --root', async () => {
    const r = await cli([
      'write',
      'stripe',
      '--data',
      write('cus_1'),
      '--store',
      'sqlite:/proc/twinworld-x',
    ]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(
      /^error ROOT_READ_ONLY: cannot create the world root \/proc\/twinworld-x \(--store sqlite:\/proc\/twinworld-x\) in \/proc: .*; pass a --store on a disk, e.g. --store sqlite:\.\/\.twinworld/,
    );
    expect(r.stderr).not.toContain('--root');
  });
});
