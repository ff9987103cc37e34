// `twinworld walk <file>` end to end: the built binary runs a walk module written to a temp dir,
// prints its report (text or JSON), saves it as a golden log, and refuses what it cannot run.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkFixture } from '../../src/walk/index.js';
import { cli } from '../cli/in-process.js';

const BIN = resolve('dist/src/cli/main.js');
let dir: string;

const WALK = `
// A user's walk: a Stripe endpoint whose receiver fails once, two customers, a retry.
export const options = { seed: 'from-module', start: '2026-02-02T10:00:00Z' };

export default async function (walk, packs) {
  const twin = walk.twin('stripe');
  const app = walk.receiver('my-app', { script: [500] });
  await packs.stripe.createWebhookEndpoint(twin, { url: app.url, enabled_events: ['customer.created'], secret: 'whsec_user_walk_secret_123456' });
  await walk.traced(async () => {
    await packs.stripe.createCustomer(twin, { email: 'ada@example.com' });
    await packs.stripe.createCustomer(twin, { email: 'grace@example.com' });
  });
  await walk.advance(2 * 3600_000);
}
`;

function tw(args: string[]) {
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: 60_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'twinworld-walk-cmd-'));
  writeFileSync(join(dir, 'my-walk.mjs'), WALK);
  writeFileSync(
    join(dir, 'named.mjs'),
    'export async function walk(walk) { await walk.world.twin("notes").applyWrite({ operation: "note.add", subjectType: "note", subjectId: "n1", fields: {} }); }\n',
  );
  writeFileSync(join(dir, 'empty.mjs'), 'export const nothing = 1;\n');
  writeFileSync(
    join(dir, 'leap.mjs'),
    "export const options = { start: '2026-02-30T09:00:00Z' };\nexport default async () => {};\n",
  );
  writeFileSync(
    join(dir, 'throws.mjs'),
    'export default async () => { throw new Error("walk went wrong"); };\n',
  );
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('twinworld walk', () => {
  it('runs the module and prints its report as JSON', () => {
    const r = tw(['walk', join(dir, 'my-walk.mjs'), '--json']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report.seed).toBe('from-module');
    expect(report.clock).toEqual({
      start: '2026-02-02T10:00:00.000Z',
      now: '2026-02-02T12:00:00.000Z',
    });
    expect(report.deliveries).toHaveLength(2);
    expect(report.deliveries.every((d: { state: string }) => d.state === 'succeeded')).toBe(true);
    expect(report.deliveries[0].attempts.map((a: { kind: string }) => a.kind)).toEqual([
      'first',
      'retry',
    ]);
    expect(report.receivers[0]).toMatchObject({ name: 'my-app', requests: 3, accepted: 2 });
    expect(report.hashes.stripe).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(report.root).toBeNull();
    // Same module, same seed: same hashes; --seed overrides the module's.
    expect(JSON.parse(tw(['walk', join(dir, 'my-walk.mjs'), '--json']).stdout).hashes).toEqual(
      report.hashes,
    );
    expect(
      JSON.parse(tw(['walk', join(dir, 'my-walk.mjs'), '--json', '--seed', '9']).stdout).hashes,
    ).not.toEqual(report.hashes);
  });

  it('prints a human report, keeps the world with --root, saves a golden log with --save', async () => {
    const root = join(dir, 'kept');
    const save = join(dir, 'golden', 'my-walk');
    const r = tw(['walk', join(dir, 'my-walk.mjs'), '--root', root, '--save', save]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('twinworld walk my-walk.mjs — seed from-module');
    expect(r.stdout).toMatch(
      /stripe customer\.created evt_\w+ → receiver my-app: succeeded after 2 attempts/,
    );
    expect(r.stdout).toMatch(/#2 retry\s+2026-02-02 10:1\d:\d\d\.\d{3}\s+succeeded 200/);
    expect(r.stdout).toMatch(/trace [0-9a-f]{32}/);
    expect(r.stdout).toContain(`world kept at ${root}`);
    expect(existsSync(join(root, 'secrets.db'))).toBe(true);
    const deliveries = tw(['deliveries', '--root', root, '--json']);
    expect(JSON.parse(deliveries.stdout)).toHaveLength(2);
    const check = await checkFixture(join(dir, 'golden'), 'my-walk');
    expect(check).toMatchObject({ hashesMatch: true, violations: [] });
    expect(readFileSync(`${save}.json`, 'utf8')).toContain('"seed": "from-module"');
    // A kept root is never reused: the seeded ids would collide with what is there.
    const again = tw(['walk', join(dir, 'my-walk.mjs'), '--root', root, '--json']);
    expect(again.status).toBe(1);
    expect(JSON.parse(again.stderr)).toMatchObject({ error: 'INVALID_ARGUMENT', path: 'root' });
  });

  it('accepts a named `walk` export', () => {
    const r = tw(['walk', join(dir, 'named.mjs'), '--json']);
    expect(r.status).toBe(0);
    expect(Object.keys(JSON.parse(r.stdout).hashes)).toEqual(['notes']);
  });

  it('refuses a module without a walk, a missing file, and reports a walk that throws', () => {
    const empty = tw(['walk', join(dir, 'empty.mjs')]);
    expect(empty.status).toBe(1);
    expect(empty.stderr).toMatch(
      /error INVALID_ARGUMENT: .*exports no walk; write `export default async \(walk, packs\)/,
    );
    const missing = tw(['walk', join(dir, 'nope.mjs')]);
    expect(missing.status).toBe(1);
    expect(missing.stderr).toContain('no walk module at');
    const throws = tw(['walk', join(dir, 'throws.mjs')]);
    expect(throws.status).toBe(1);
    // The walk's own bug, typed and placed: the module and the line of the throw, not INTERNAL.
    expect(throws.stderr).toMatch(
      /^error WALK_FAILED: the walk in .*throws\.mjs threw: walk went wrong \(at .*throws\.mjs:1\)\n$/,
    );
    expect(tw(['walk']).status).toBe(2);
  });

  it('checks --save and --root before the walk runs: typed, at the flag, nothing run', () => {
    const marker = join(dir, 'ran.txt');
    const walkFile = join(dir, 'marks.mjs');
    writeFileSync(
      walkFile,
      `import { appendFileSync } from 'node:fs';\nexport default async () => { appendFileSync(${JSON.stringify(marker)}, 'ran\\n'); };\n`,
    );
    const aFile = join(dir, 'a-file');
    writeFileSync(aFile, 'not a folder\n');
    const golden = join(dir, 'golden-folder');
    mkdirSync(golden, { recursive: true });
    const refusals: [string[], string, RegExp][] = [
      // Was: the walk ran, then "error EEXIST: … mkdir" at the path of the file.
      [
        ['--save', join(aFile, 'walk-mine')],
        'save',
        /a-file is a file, so the log cannot be saved under it/,
      ],
      // Was: the walk ran, then INVALID_ARGUMENT at "name", a flag nobody typed.
      [['--save', join(dir, 'my walk')], 'save', /fixture name "my walk" is not valid/],
      // Was: golden-folder.jsonl written beside the folder.
      [
        ['--save', golden],
        'save',
        /is a folder; --save names the files to write, without extension/,
      ],
      [['--save', `${golden}/`], 'save', /is a folder/],
    ];
    for (const [flags, path, message] of refusals) {
      const r = tw(['walk', walkFile, ...flags, '--json']);
      expect(r.status).toBe(1);
      expect(r.stdout).toBe('');
      const error = JSON.parse(r.stderr);
      expect(error).toMatchObject({ error: 'INVALID_ARGUMENT', path });
      expect(error.message).toMatch(message);
    }
    expect(existsSync(`${golden}.jsonl`)).toBe(false);
    // Was: "error ENOTDIR: … scandir" — now the refusal every world root gets.
    for (const root of [aFile, join(aFile, 'sub')]) {
      const r = tw(['walk', walkFile, '--root', root]);
      expect(r.status).toBe(1);
      expect(r.stderr).toMatch(
        /^error ROOT_NOT_A_FOLDER: the world root .*a-file.* is a file, not a folder/,
      );
    }
    expect(existsSync(marker)).toBe(false);
    // The same module runs once the path is one: the folder is made, the fixture checks out.
    const ok = tw(['walk', walkFile, '--save', join(golden, 'deep', 'walk-mine.jsonl')]);
    expect(ok.stderr).toBe('');
    expect(ok.status).toBe(0);
    expect(readFileSync(marker, 'utf8')).toBe('ran\n');
    expect(existsSync(join(golden, 'deep', 'walk-mine.json'))).toBe(true);
  });

  it("refuses a module's start that is not on the calendar, instead of rolling it into March", () => {
    const r = tw(['walk', join(dir, 'leap.mjs'), '--json']);
    expect(r.stdout).toBe('');
    expect(r.status).toBe(1);
    expect(JSON.parse(r.stderr)).toMatchObject({
      error: 'INVALID_ARGUMENT',
      path: 'options.start',
      message: expect.stringContaining(
        'leap.mjs: options.start "2026-02-30T09:00:00Z" is not a time on the calendar',
      ),
    });
    // --start wins over the module's, in any form the flag takes: an offset names its instant.
    const fixed = tw([
      'walk',
      join(dir, 'leap.mjs'),
      '--start',
      '2026-03-02T10:00+01:00',
      '--json',
    ]);
    expect(fixed.stderr).toBe('');
    expect(JSON.parse(fixed.stdout).clock.start).toBe('2026-03-02T09:00:00.000Z');
  });

  it("checks a module's options.seed and options.start as --seed and --start, before anything runs", async () => {
    const marker = join(dir, 'options-ran.txt');
    let modules = 0;
    // A file each: in this process, import() answers a path it has seen from its cache.
    const module = (options: string) => {
      const file = join(dir, `options-${++modules}.mjs`);
      writeFileSync(
        file,
        `import { appendFileSync } from 'node:fs';\nexport const options = ${options};\nexport default async () => { appendFileSync(${JSON.stringify(marker)}, 'ran\\n'); };\n`,
      );
      return file;
    };
    // Each was taken, and the walk ran seeded "NaN", "1.5", "-1" or on a clock at 1.5 ms.
    const refusals: [string, string, RegExp][] = [
      [
        '{ seed: NaN }',
        'options.seed',
        /options\.seed must be a whole number 0–9007199254740991 or non-empty text, got NaN/,
      ],
      ['{ seed: 1.5 }', 'options.seed', /got 1\.5 .*the walk of the text "1\.5"/],
      ['{ seed: -1 }', 'options.seed', /got -1/],
      ['{ seed: 2 ** 53 }', 'options.seed', /got 9007199254740992/],
      ["{ seed: '' }", 'options.seed', /got ""/],
      ['{ start: 1.5 }', 'options.start', /options\.start 1\.5 is no whole number of epoch ms/],
      ['{ start: true }', 'options.start', /options\.start must be an ISO time .*got true/],
      [
        '{ sede: 7 }',
        'options.sede',
        /options\.sede is not a walk option; `options` takes seed and start/,
      ],
    ];
    const root = join(dir, 'options-root');
    for (const [options, path, message] of refusals) {
      const r = await cli(['walk', module(options), '--root', root]);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/^error INVALID_ARGUMENT: .*options-\d+\.mjs: /);
      expect(r.stderr).toMatch(message);
      expect(r.stderr).toContain(`(at ${path})\n`);
      expect(r.status).toBe(1);
    }
    expect(existsSync(marker)).toBe(false);
    expect(existsSync(root)).toBe(false);
    // Text is a seed as it always was, and a flag still overrides what it replaces.
    const text = await cli(['walk', module("{ seed: 'nightly' }"), '--json']);
    expect(text.json()).toMatchObject({ seed: 'nightly' });
    const flagged = await cli([
      'walk',
      module('{ seed: NaN, start: 1.5 }'),
      '--seed',
      '3',
      '--start',
      '2026-01-02',
      '--json',
    ]);
    expect(flagged.stderr).toBe('');
    expect(flagged.json()).toMatchObject({
      seed: '3',
      clock: { start: '2026-01-02T00:00:00.000Z' },
    });
  });

  // /proc takes no new files and answers ENOENT, as a folder that is not there would.
  it.skipIf(!existsSync('/proc/self'))(
    '--save where no file can be made is refused before the walk runs; a save that fails after it is EXPORT_FAILED at save',
    async () => {
      const marker = join(dir, 'save-ran.txt');
      const walkFile = join(dir, 'save-marks.mjs');
      const later = join(dir, 'later');
      mkdirSync(later);
      // The walk turns the folder it will be saved in into a file, as another process might.
      writeFileSync(
        walkFile,
        `import { appendFileSync, rmSync, writeFileSync } from 'node:fs';\nexport default async () => { appendFileSync(${JSON.stringify(marker)}, 'ran\\n'); rmSync(${JSON.stringify(later)}, { recursive: true }); writeFileSync(${JSON.stringify(later)}, 'a file now'); };\n`,
      );
      // Was: the walk ran, then "error ENOENT: ENOENT: no such file or directory, open '/proc/foo.jsonl'".
      const proc = await cli(['walk', walkFile, '--save', '/proc/twinworld-walk-save']);
      expect(proc.stderr).toBe(
        'error INVALID_ARGUMENT: --save /proc/twinworld-walk-save: cannot write in /proc (the folder does not exist or takes no new files (ENOENT)); pick a path in a folder this user can write, e.g. --save ./fixtures/twinworld-walk-save (at save)\n',
      );
      expect(proc.status).toBe(1);
      expect(existsSync(marker)).toBe(false);
      // Was: "error ENOTDIR: ENOTDIR: not a directory, open '…/later/sub/walk-mine.jsonl'".
      const failed = await cli([
        'walk',
        walkFile,
        '--save',
        join(later, 'sub', 'walk-mine'),
        '--json',
      ]);
      expect(readFileSync(marker, 'utf8')).toBe('ran\n');
      expect(failed.stdout).toBe('');
      expect(failed.status).toBe(1);
      expect(JSON.parse(failed.stderr)).toMatchObject({
        error: 'EXPORT_FAILED',
        path: 'save',
        message: `--save: the golden log walk-mine could not be saved: making the folder ${join(later, 'sub')} failed, a part of the path is a file, not a folder (ENOTDIR); save it in a folder this user can write, on a disk with space`,
        details: { file: join(later, 'sub'), reason: 'ENOTDIR' },
      });
    },
  );
});
