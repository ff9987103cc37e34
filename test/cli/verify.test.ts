// `twinworld verify` and the chain through the binary: ok (exit 0) on a clean twin, the first entry
// that does not match (exit 1) on a changed one, TWIN_LOG_MISSING on an emptied database, and
// export → import refusing a tampered file with IMPORT_CHAIN_BROKEN naming its line, and export
// refusing a stored log whose chain is broken, naming the entry.
import Database from 'better-sqlite3';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openWorld } from '../../src/world/world.js';
import { tempDir } from '../support/backends.js';
import { cli } from './in-process.js';

const BIN = resolve('dist/src/cli/main.js');
const dir = tempDir('twinworld-verify-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

function tw(args: string[], input = ''): Run {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    encoding: 'utf8',
    input,
    timeout: 60_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

let n = 0;
/** A root holding twin "shop" with `count` customers, one write per entry. */
function shop(count: number): string[] {
  const r = ['--root', join(dir, `w${++n}`)];
  const writes = Array.from({ length: count }, (_, i) => ({
    operation: 'customer.create',
    subjectType: 'customer',
    subjectId: `cus_${i + 1}`,
    fields: { plan: 'free' },
  }));
  for (const w of writes)
    expect(tw(['write', 'shop', ...r, '--data', JSON.stringify(w)]).status).toBe(0);
  return r;
}

describe('twinworld verify', () => {
  it('says ok on a clean twin, exit 0, in text and JSON', () => {
    const r = shop(3);
    const text = tw(['verify', 'shop', ...r]);
    expect(text.stderr).toBe('');
    expect(text.status).toBe(0);
    expect(text.stdout).toMatch(
      /^twin "shop": ok — 3 entries, chain intact to entry 3 \([0-9a-f]{16}…\); the state matches the log \(sha256:[0-9a-f]{64}\)\n$/,
    );
    const json = tw(['verify', 'shop', ...r, '--json']);
    expect(json.status).toBe(0);
    const report = JSON.parse(json.stdout) as Record<string, unknown>;
    expect(report).toMatchObject({ twin: 'shop', ok: true, entries: 3, unchained: 0 });
    expect(report.stateHash).toBe(tw(['hash', 'shop', ...r]).stdout.trim());
    expect(report.foldedHash).toBe(report.stateHash);
    expect((report.chainHead as { seq: number }).seq).toBe(3);
  });

  it('names the changed entry, what differed and how to look, exit 1', () => {
    const r = shop(4);
    const db = new Database(join(r[1]!, 'twins', 'shop.db'));
    db.prepare(
      'UPDATE entries SET body = replace(body, \'"free"\', \'"pro"\') WHERE seq = 2',
    ).run();
    db.close();
    const text = tw(['verify', 'shop', ...r]);
    expect(text.status).toBe(1);
    expect(text.stdout).toMatch(/^twin "shop": BROKEN at entry 2 \(chain\)\n  entry 2 was changed/);
    expect(text.stdout).toContain('  investigate: `twinworld log shop --after 0 --limit 3`');
    const json = tw(['verify', 'shop', ...r, '--json']);
    expect(json.status).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({
      ok: false,
      problem: { seq: 2, check: 'chain' },
    });
  });

  it('an emptied database: TWIN_LOG_MISSING naming the root, exit 1, for verify and for a write', () => {
    const r = shop(2);
    const file = join(r[1]!, 'twins', 'shop.db');
    truncateSync(file, 0);
    for (const f of ['-wal', '-shm']) rmSync(`${file}${f}`, { force: true });
    for (const args of [
      ['verify', 'shop', ...r],
      ['write', 'shop', ...r, '--data', '{"operation":"x","subjectType":"t","subjectId":"1"}'],
    ]) {
      const run = tw(args);
      expect(run.status, args[0]).toBe(1);
      expect(run.stdout).toBe('');
      expect(run.stderr).toMatch(
        new RegExp(
          `^error TWIN_LOG_MISSING: twin "shop" in the world at ${r[1]} holds no entries, but the root recorded that its log reached entry 2`,
        ),
      );
    }
  });

  it('is listed in help with its usage', () => {
    expect(tw(['help']).stdout).toMatch(/^ {2}verify\s+Check a twin's hash chain/m);
    const help = tw(['verify', '--help']);
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(
      /^Usage: twinworld verify <twin> \[--root DIR \| --store URL\] \[--json\]/,
    );
  });
});

describe('export → import through the binary', () => {
  it('keeps the chain, and refuses a tampered file at the changed line', () => {
    const r = shop(4);
    const file = join(dir, `shop-${n}.jsonl`);
    expect(tw(['export', 'shop', ...r, '--out', file]).status).toBe(0);
    const target = ['--root', join(dir, `target-${n}`)];
    const imp = tw(['import', 'shop', file, ...target, '--json']);
    expect(imp.status).toBe(0);
    const source = JSON.parse(tw(['verify', 'shop', ...r, '--json']).stdout) as {
      chainHead: { hash: string };
    };
    expect(JSON.parse(imp.stdout)).toMatchObject({ appended: 4, chain: source.chainHead.hash });
    expect(tw(['export', 'shop', ...target]).stdout).toBe(readFileSync(file, 'utf8'));
    expect(tw(['verify', 'shop', ...target]).status).toBe(0);

    const lines = readFileSync(file, 'utf8').split('\n');
    lines[1] = lines[1]!.replace('"free"', '"pro"');
    writeFileSync(file, lines.join('\n'));
    const bad = tw(['import', 'copy', file, ...target, '--json']);
    expect(bad.status).toBe(1);
    expect(JSON.parse(bad.stderr)).toMatchObject({
      error: 'IMPORT_CHAIN_BROKEN',
      path: 'line 2',
      details: { line: 2, seq: 2, appended: 1 },
    });
    expect(tw(['hash', 'copy', ...target, '--json']).stdout).toContain('"entries":1');
  });
});

describe('export of a stored log whose chain is broken', () => {
  /** A root whose twin "shop" holds four entries (written in this process: setup only). */
  async function four(): Promise<string> {
    const root = join(dir, `broken-${++n}`);
    const world = openWorld({ root });
    for (let i = 1; i <= 4; i++)
      await world.twin('shop').applyWrite({
        operation: 'customer.create',
        subjectType: 'customer',
        subjectId: `cus_${i}`,
        fields: { plan: 'free' },
      });
    await world.close();
    return root;
  }

  function tamper(root: string, sql: string): void {
    const db = new Database(join(root, 'twins', 'shop.db'));
    db.prepare(sql).run();
    db.close();
  }

  const edit = (seq: number) =>
    `UPDATE entries SET body = replace(body, '"free"', '"pro"') WHERE seq = ${seq}`;

  it('is refused with IMPORT_CHAIN_BROKEN naming the entry; --out leaves nothing; --allow-broken exports it as stored', async () => {
    const root = await four();
    const clean = (await cli(['export', 'shop', '--root', root])).stdout.split('\n');
    tamper(root, edit(2));
    // Was: the broken log on stdout, exit 0, for import and replay to refuse later.
    const out = await cli(['export', 'shop', '--root', root]);
    expect(out.stderr).toMatch(
      /^error IMPORT_CHAIN_BROKEN: twin "shop"'s log is broken at entry 2: entry 2 was changed after it was written: .*--allow-broken exports the log as it is stored; entry 1 was written to stdout \(at twin\)\n$/,
    );
    expect(out.status).toBe(1);
    expect(out.stdout).toBe(`${clean[0]}\n`);
    const file = join(dir, `broken-${n}.jsonl`);
    const json = await cli(['export', 'shop', '--root', root, '--out', file, '--json']);
    expect(json.status).toBe(1);
    expect(JSON.parse(json.stderr)).toMatchObject({
      error: 'IMPORT_CHAIN_BROKEN',
      path: 'twin',
      details: { seq: 2 },
      message: expect.stringMatching(/; nothing was left at .*broken-\d+\.jsonl$/),
    });
    expect(existsSync(file)).toBe(false);
    const as = await cli(['export', 'shop', '--root', root, '--allow-broken']);
    expect(as.stderr).toBe('');
    expect(as.status).toBe(0);
    expect(as.stdout.split('\n')).toHaveLength(5);
    expect(as.stdout).toContain('"pro"');
  });

  it('names the entry the log vouches against: the one before the last, the newest (by the root), a removed one', async () => {
    const cases: [string, RegExp][] = [
      // The newest entry still links to entry 3's first bytes: entry 3 changed, not 4.
      [edit(3), /broken at entry 3: entry 3 was changed after it was written/],
      // Nothing links to the newest; the root's mark of it does.
      [
        edit(4),
        /broken at entry 4: entry 4 was changed after it was written: its line hashes to [0-9a-f]{12}…, but the root \(.*shop\.head\) recorded/,
      ],
      [
        'DELETE FROM entries WHERE seq = 2',
        /broken at entry 2: entry 2 is missing: after entry 1 the log holds entry 3/,
      ],
    ];
    for (const [sql, message] of cases) {
      const root = await four();
      tamper(root, sql);
      const r = await cli(['export', 'shop', '--root', root]);
      expect(r.stderr).toMatch(message);
      expect(r.status).toBe(1);
      // verify finds the same log broken.
      expect((await cli(['verify', 'shop', '--root', root])).status).toBe(1);
    }
  });
});
