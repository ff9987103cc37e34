// The `twinworld` command end to end: the built binary run as a child process against temp
// world roots, checking output, exit codes (0 ok / 1 refused / 2 usage) and what reached the log.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { cli } from './in-process.js';

/** The built binary, dist/src/cli/main.js. */
let BIN: string;
const COMMANDS = ['write', 'log', 'state', 'hash', 'export', 'import', 'replay'];

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

function tw(args: string[], input?: string): Run {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    encoding: 'utf8',
    input: input ?? '',
    timeout: 60_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

const customer = (id: string, fields: Record<string, unknown> = {}): string =>
  JSON.stringify({ operation: 'customer.create', subjectType: 'customer', subjectId: id, fields });

let dir: string;
let root: string;
let n = 0;
/** A fresh world root per test, so tests never see each other's twins. */
function freshRoot(): string[] {
  root = join(dir, `w${++n}`);
  return ['--root', root];
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'twinworld-cli-'));
  // dist/ is built once by the suite's global setup, exactly as `npm run build` does.
  BIN = resolve('dist/src/cli/main.js');
  expect(readFileSync(BIN, 'utf8').startsWith('#!/usr/bin/env node\n')).toBe(true);
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('write → log → state → hash', () => {
  it('round-trips a write through every read command', async () => {
    // The binary writes first and hashes last; the reads between run the same command table in
    // process: six processes back to back raced the test's timeout on a loaded machine.
    const r = freshRoot();
    const w = tw(['write', 'stripe', ...r, '--data', customer('cus_1', { name: 'Ada' })]);
    expect(w.status).toBe(0);
    expect(w.stderr).toBe('');
    expect(w.stdout).toMatch(/^SEQ\s+RECORDED/);
    expect(w.stdout).toMatch(
      /1\s+\S+Z\s+api\s+customer\.create\s+customer\/cus_1\s+\{"name":"Ada"\}/,
    );

    const upd = JSON.stringify({
      operation: 'customer.update',
      subjectType: 'customer',
      subjectId: 'cus_1',
      fields: { email: 'ada@example.com' },
    });
    expect((await cli(['write', 'stripe', ...r, '-d', upd])).status).toBe(0);

    const log = await cli(['log', 'stripe', ...r]);
    expect(log.status).toBe(0);
    expect(log.stdout.trim().split('\n')).toHaveLength(3);
    expect(log.stdout).toContain('customer.update');

    const state = await cli(['state', 'stripe', ...r, '--type', 'customer']);
    expect(state.status).toBe(0);
    expect(state.stdout).toMatch(
      /customer\s+cus_1\s+2\s+\{"name":"Ada","email":"ada@example.com"\}/,
    );

    const hash = tw(['hash', 'stripe', ...r]);
    expect(hash.status).toBe(0);
    expect(hash.stdout).toMatch(/^sha256:[0-9a-f]{64}\n$/);
    const json = JSON.parse((await cli(['hash', 'stripe', ...r, '--json'])).stdout);
    expect(json).toEqual({ twin: 'stripe', hash: hash.stdout.trim(), entries: 2 });
  });

  it('lists every type without --type, ordered by type then id', () => {
    const r = freshRoot();
    const batch = [
      {
        operation: 'invoice.create',
        subjectType: 'invoice',
        subjectId: 'in_1',
        fields: { amount: 5 },
        projection: { creates: [{ type: 'line_item', id: 'li_1', fields: { qty: 1 } }] },
      },
      JSON.parse(customer('cus_2')),
      JSON.parse(customer('cus_1')),
      { operation: 'customer.delete', subjectType: 'customer', subjectId: 'cus_2', delete: true },
    ];
    expect(tw(['write', 'stripe', ...r, '--data', JSON.stringify(batch)]).status).toBe(0);
    const state = JSON.parse(tw(['state', 'stripe', ...r, '--json']).stdout) as {
      type: string;
      id: string;
    }[];
    expect(state.map((x) => `${x.type}/${x.id}`)).toEqual([
      'customer/cus_1',
      'invoice/in_1',
      'line_item/li_1',
    ]);
    expect(tw(['state', 'stripe', ...r, '--type', 'nothing']).stdout).toContain(
      'no live resources',
    );
  });

  it('reads the write from stdin when --data is absent', () => {
    const r = freshRoot();
    const w = tw(['write', 'gh', ...r, '--json'], customer('cus_9', { from: 'stdin' }));
    expect(w.status).toBe(0);
    const entry = JSON.parse(w.stdout);
    expect(entry).toMatchObject({
      seq: 1,
      twin: 'gh',
      subjectId: 'cus_9',
      fields: { from: 'stdin' },
      actor: 'api',
    });
    expect(typeof entry.writeId).toBe('string');
  });

  it('appends an array of writes atomically and prints every entry', () => {
    const r = freshRoot();
    const w = tw(['write', 'stripe', ...r, '--json'], `[${customer('a')},${customer('b')}]`);
    expect(w.status).toBe(0);
    expect((JSON.parse(w.stdout) as { seq: number }[]).map((e) => e.seq)).toEqual([1, 2]);
  });

  it('pages the log with --after and --limit', () => {
    const r = freshRoot();
    tw(['write', 'stripe', ...r], `[${[1, 2, 3, 4, 5].map((i) => customer(`c${i}`)).join(',')}]`);
    const page = JSON.parse(
      tw(['log', 'stripe', ...r, '--after', '1', '--limit', '2', '--json']).stdout,
    ) as { seq: number }[];
    expect(page.map((e) => e.seq)).toEqual([2, 3]);
    expect(JSON.parse(tw(['log', 'stripe', ...r, '--after', '5', '--json']).stdout)).toEqual([]);
  });
});

describe('refused writes', () => {
  it('exits 1 with the code on stderr and appends nothing', () => {
    const r = freshRoot();
    expect(tw(['write', 'stripe', ...r, '-d', customer('cus_1')]).status).toBe(0);
    const missing = tw([
      'write',
      'stripe',
      ...r,
      '-d',
      JSON.stringify({ operation: 'customer.create', subjectType: 'customer' }),
    ]);
    expect(missing.status).toBe(1);
    expect(missing.stdout).toBe('');
    expect(missing.stderr).toMatch(
      /^error INVALID_WRITE: .*subjectId.* \(at write\.subjectId\)\n$/,
    );

    const unknown = tw([
      'write',
      'stripe',
      ...r,
      '--json',
      '-d',
      JSON.stringify({ ...JSON.parse(customer('cus_2')), colour: 'red' }),
    ]);
    expect(unknown.status).toBe(1);
    expect(JSON.parse(unknown.stderr)).toMatchObject({
      error: 'INVALID_WRITE',
      path: 'write.colour',
    });

    const notJson = tw(['write', 'stripe', ...r], '{"operation":');
    expect(notJson.status).toBe(1);
    expect(notJson.stderr).toMatch(/^error INVALID_WRITE: the write on stdin is not valid JSON/);

    // One bad write in a batch refuses the whole batch.
    const batch = tw(['write', 'stripe', ...r, '-d', `[${customer('cus_3')},{"operation":"x"}]`]);
    expect(batch.status).toBe(1);
    expect(batch.stderr).toContain('(at writes[1].subjectType)');

    expect(JSON.parse(tw(['hash', 'stripe', ...r, '--json']).stdout).entries).toBe(1);
  });

  it('leaves no empty twin behind when the first write is refused', () => {
    const r = freshRoot();
    expect(tw(['write', 'fresh', ...r, '-d', '{}']).status).toBe(1);
    const hash = tw(['hash', 'fresh', ...r]);
    expect(hash.status).toBe(1);
    // Refused before the root was made: no world, let alone an empty twin.
    expect(hash.stderr).toMatch(/^error ROOT_NOT_FOUND: /);
  });

  it('refuses read commands on a world that does not exist, creating nothing', () => {
    const r = freshRoot();
    for (const cmd of ['log', 'state', 'hash', 'export']) {
      const res = tw([cmd, 'ghost', ...r]);
      expect(res.status, cmd).toBe(1);
      expect(res.stderr, cmd).toMatch(/^error ROOT_NOT_FOUND: there is no world at /);
    }
    expect(existsSync(root)).toBe(false);
    expect(tw(['hash', 'Not A Name', ...r]).stderr).toMatch(/^error INVALID_ARGUMENT: twin name/);
  });
});

describe('export, import, replay', () => {
  it('export then import into another twin gives the same hash; replay prints it too', async () => {
    // The binary writes; the other steps run in process (a process each raced the timeout under load).
    const r = freshRoot();
    tw(['write', 'stripe', ...r], `[${customer('a', { n: 1 })},${customer('b', { n: 2 })}]`);
    await cli([
      'write',
      'stripe',
      ...r,
      '-d',
      JSON.stringify({
        operation: 'customer.delete',
        subjectType: 'customer',
        subjectId: 'a',
        delete: true,
      }),
    ]);
    const hash = (await cli(['hash', 'stripe', ...r])).stdout.trim();

    const exported = await cli(['export', 'stripe', ...r]);
    expect(exported.status).toBe(0);
    const lines = exported.stdout.trim().split('\n');
    expect(lines).toHaveLength(3);
    lines.forEach((l) => expect(() => JSON.parse(l)).not.toThrow());
    const file = join(dir, 'stripe.jsonl');
    writeFileSync(file, exported.stdout);

    const imp = await cli(['import', 'copy', file, ...r]);
    expect(imp.status).toBe(0);
    expect(imp.stdout).toContain('imported 3 entries into twin "copy"');
    expect(imp.stderr).toBe('');
    expect((await cli(['hash', 'copy', ...r])).stdout.trim()).toBe(hash);

    // Re-running the import skips what is already there.
    const again = JSON.parse((await cli(['import', 'copy', file, ...r, '--json'])).stdout);
    expect(again).toMatchObject({ twin: 'copy', appended: 0, skipped: 3, head: 3, hash });

    const replay = await cli(['replay', file]);
    expect(replay.status).toBe(0);
    expect(replay.stdout).toBe(`${hash}  3 entries (twin "stripe")\n`);
    expect(JSON.parse((await cli(['replay', file, '--json'])).stdout)).toEqual({
      hash,
      entries: 3,
      hashes: { stripe: hash },
      unchained: {},
    });
    expect((await cli(['replay', file, '--expect', hash])).status).toBe(0);
    const malformed = await cli(['replay', file, '--expect', 'sha256:00']);
    expect(malformed.status).toBe(2);
    expect(malformed.stderr).toMatch(/^error USAGE: --expect takes/);
    const wrong = await cli(['replay', file, '--expect', `sha256:${'0'.repeat(64)}`]);
    expect(wrong.status).toBe(1);
    expect(wrong.stderr).toMatch(
      /^error HASH_MISMATCH: .* not the expected sha256:0+ \(at expect\)\n$/,
    );
  });

  it('replays a log holding several twins to one hash per twin', async () => {
    // In process, through the same command table: a process per step raced the timeout under load.
    const r = freshRoot();
    await cli(['write', 'stripe', ...r, '-d', customer('a')]);
    await cli(['write', 'github', ...r, '-d', customer('b')]);
    const hashes = {
      github: (await cli(['hash', 'github', ...r])).stdout.trim(),
      stripe: (await cli(['hash', 'stripe', ...r])).stdout.trim(),
    };
    const file = join(dir, 'world.jsonl');
    writeFileSync(
      file,
      (await cli(['export', 'stripe', ...r])).stdout +
        (await cli(['export', 'github', ...r])).stdout,
    );
    const out = await cli(['replay', file]);
    expect(out.status).toBe(0);
    expect(out.stdout).toMatch(new RegExp(`github\\s+${hashes.github}\n`));
    expect(out.stdout).toMatch(new RegExp(`stripe\\s+${hashes.stripe}\n`));
    expect(out.stdout).toContain('2 entries in 2 twins');
    expect(JSON.parse((await cli(['replay', file, '--json'])).stdout)).toMatchObject({
      hash: null,
      entries: 2,
      hashes,
    });
    expect(
      (
        await cli([
          'replay',
          file,
          '--expect',
          `stripe=${hashes.stripe}`,
          '--expect',
          `github=${hashes.github}`,
        ])
      ).status,
    ).toBe(0);
    const bare = await cli(['replay', file, '--expect', hashes.stripe]);
    expect(bare.status).toBe(1);
    expect(bare.stderr).toMatch(/^error HASH_MISMATCH: .*holds 2 twins/);
    expect((await cli(['replay', file, '--expect', `stripe=${hashes.github}`])).status).toBe(1);
  });

  it('exports to a file with --out and imports from stdin with -', () => {
    const r = freshRoot();
    tw(['write', 'stripe', ...r, '-d', customer('a')]);
    const file = join(dir, 'out.jsonl');
    const out = tw(['export', 'stripe', ...r, '--out', file, '--json']);
    expect(out.status).toBe(0);
    expect(JSON.parse(out.stdout)).toEqual({ twin: 'stripe', entries: 1, file });
    expect(readFileSync(file, 'utf8').trim().split('\n')).toHaveLength(1);
    const imp = tw(['import', 'piped', '-', ...r], readFileSync(file, 'utf8'));
    expect(imp.status).toBe(0);
    expect(tw(['hash', 'piped', ...r]).stdout).toBe(tw(['hash', 'stripe', ...r]).stdout);
    expect(
      tw(['export', 'stripe', ...r, '--out', join(dir, 'no', 'such', 'dir.jsonl')]).stderr,
    ).toMatch(
      /^error INVALID_ARGUMENT: cannot write .*dir\.jsonl: the folder does not exist or takes no new files \(ENOENT\); check that its folder exists/,
    );
  });

  it('a malformed line 3 stops the import there, naming line 3, and keeps lines 1–2', () => {
    const r = freshRoot();
    tw(['write', 'stripe', ...r], `[${customer('a')},${customer('b')},${customer('c')}]`);
    const lines = tw(['export', 'stripe', ...r])
      .stdout.trim()
      .split('\n');
    const file = join(dir, 'bad.jsonl');
    writeFileSync(file, `${lines[0]}\n${lines[1]}\n{"seq": 3, not json\n${lines[2]}\n`);

    const imp = tw(['import', 'partial', file, ...r]);
    expect(imp.status).toBe(1);
    expect(imp.stdout).toBe('');
    expect(imp.stderr).toMatch(/^error IMPORT_MALFORMED_LINE: .*line 3/);
    const log = JSON.parse(tw(['log', 'partial', ...r, '--json']).stdout) as {
      seq: number;
      subjectId: string;
    }[];
    expect(log.map((e) => e.subjectId)).toEqual(['a', 'b']);

    const json = tw(['import', 'partial2', file, ...r, '--json']);
    expect(json.status).toBe(1);
    expect(JSON.parse(json.stderr)).toMatchObject({
      error: 'IMPORT_MALFORMED_LINE',
      details: { line: 3, appended: 2 },
    });

    const replay = tw(['replay', file]);
    expect(replay.status).toBe(1);
    expect(replay.stderr).toMatch(/^error IMPORT_MALFORMED_LINE: .*line 3/);
  });

  it('a missing file is refused with exit 1', () => {
    const r = freshRoot();
    const res = tw(['replay', join(dir, 'nope.jsonl'), ...r]);
    expect(res.status).toBe(1);
    expect(res.stderr).toMatch(/^error LOG_FILE_UNREADABLE: .*nope\.jsonl: no such file/);
  });

  it('prints no progress when stderr is not a terminal', () => {
    const r = freshRoot();
    const many = Array.from({ length: 2_500 }, (_, i) => JSON.parse(customer(`c${i}`)));
    expect(tw(['write', 'big', ...r, '--json'], JSON.stringify(many)).status).toBe(0);
    const file = join(dir, 'big.jsonl');
    expect(tw(['export', 'big', ...r, '--out', file]).status).toBe(0);
    const imp = tw(['import', 'big2', file, ...r]);
    expect(imp.status).toBe(0);
    expect(imp.stderr).toBe('');
    const replay = tw(['replay', file]);
    expect(replay.stderr).toBe('');
    expect(replay.stdout).toContain('2500 entries');
  });
});

describe('usage', () => {
  it('exits 2 on an unknown command, unknown flag, missing argument or bad value', () => {
    const cases: string[][] = [
      [],
      ['frobnicate'],
      ['log', 'stripe', '--bogus'],
      ['log'],
      ['import', 'stripe'],
      ['hash', 'a', 'b'],
      ['log', 'stripe', '--limit', 'ten'],
      ['help', 'nope'],
    ];
    for (const args of cases) {
      const res = tw(args);
      expect(res.status, args.join(' ')).toBe(2);
      expect(res.stdout, args.join(' ')).toBe('');
      expect(res.stderr, args.join(' ')).toMatch(
        /^error USAGE: [^\n]+; see `twinworld [a-z ]*--help`\n$/,
      );
    }
    expect(tw(['frobnicate']).stderr).toContain('unknown command "frobnicate";');
    // a near miss names the command meant; two equally near names are not guessed between
    expect(tw(['delivries']).stderr).toContain(
      'unknown command "delivries" (did you mean "deliveries"?)',
    );
    expect(tw(['log', 'stripe', '--bogus']).stderr).toContain('unknown option --bogus');
    const json = tw(['log', '--json']);
    expect(json.status).toBe(2);
    expect(JSON.parse(json.stderr)).toMatchObject({ error: 'USAGE', message: 'missing <twin>' });
  });

  it('--help exits 0 for the program and each command', async () => {
    // The binary answers --help once; the 24 other forms run in process (one process each raced
    // the test's timeout under load), through the same command table.
    const bin = tw(['--help']);
    expect(bin.status).toBe(0);
    for (const c of COMMANDS) expect(bin.stdout).toMatch(new RegExp(`^  ${c}\\s+\\S`, 'm'));
    for (const args of [['--help'], ['-h'], ['help']]) {
      const res = await cli(args);
      expect(res.status).toBe(0);
      for (const c of COMMANDS) expect(res.stdout).toMatch(new RegExp(`^  ${c}\\s+\\S`, 'm'));
    }
    for (const c of COMMANDS) {
      for (const args of [
        [c, '--help'],
        [c, '-h'],
        ['help', c],
      ]) {
        const res = await cli(args);
        expect(res.status, args.join(' ')).toBe(0);
        expect(res.stdout, args.join(' ')).toMatch(new RegExp(`^Usage: twinworld ${c} `));
        expect(res.stdout).toContain('--root DIR');
        expect(res.stdout).toContain('--json');
      }
    }
    // write documents how the write is given, since --json is the output switch.
    const help = (await cli(['write', '--help'])).stdout;
    expect(help).toMatch(/-d, --data JSON +the write as JSON/);
    expect(help).toContain('read from stdin when absent');
    expect(help).toContain('--json only selects the output format');
  });
});

describe('--json output parses as JSON for every command', () => {
  it('write, log, state, hash, export, import, replay', () => {
    const r = freshRoot();
    const file = join(dir, 'json.jsonl');
    const outputs = [
      tw(['write', 'stripe', ...r, '--json', '-d', customer('a')]),
      tw(['log', 'stripe', ...r, '--json']),
      tw(['state', 'stripe', ...r, '--json']),
      tw(['hash', 'stripe', ...r, '--json']),
      tw(['export', 'stripe', ...r, '--json', '--out', file]),
      tw(['import', 'other', file, ...r, '--json']),
      tw(['replay', file, '--json']),
    ];
    for (const o of outputs) {
      expect(o.status).toBe(0);
      expect(() => JSON.parse(o.stdout)).not.toThrow();
    }
  });
});

describe('in-process', () => {
  function io(tty: boolean, input = '') {
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    let out = '';
    let err = '';
    stdout.on('data', (c: Buffer) => (out += c.toString()));
    stderr.on('data', (c: Buffer) => (err += c.toString()));
    const stdin = new PassThrough();
    stdin.end(input);
    return {
      io: { stdin, stdout, stderr, isTTY: { stdin: tty, stdout: tty, stderr: tty } },
      out: () => out,
      err: () => err,
    };
  }

  it('shows a \\r-updated progress line on a terminal stderr during a long import, and clears it', async () => {
    const r = freshRoot();
    const many = Array.from({ length: 2_500 }, (_, i) => JSON.parse(customer(`c${i}`)));
    const w = io(false, JSON.stringify(many));
    expect(await runCli(['write', 'big', ...r], w.io)).toBe(0);
    const file = join(dir, 'tty.jsonl');
    expect(await runCli(['export', 'big', ...r, '--out', file], io(false).io)).toBe(0);

    const t = io(true);
    expect(await runCli(['import', 'big2', file, ...r], t.io)).toBe(0);
    expect(t.err()).toContain('\rimporting: line 1000, 1000 appended');
    expect(t.err()).toContain('\rimporting: line 2000, 2000 appended');
    expect(t.err().endsWith('\r\x1b[K')).toBe(true);
    expect(t.out()).toContain('imported 2500 entries');

    const rp = io(true);
    expect(await runCli(['replay', file], rp.io)).toBe(0);
    expect(rp.err()).toMatch(/\rreplaying: line \d+, \d+ appended/);
  });

  it('will not wait on a terminal stdin for the write', async () => {
    const t = io(true);
    expect(await runCli(['write', 'stripe', ...freshRoot()], t.io)).toBe(2);
    expect(t.err()).toMatch(/^error USAGE: give the write with --data/);
  });
});
