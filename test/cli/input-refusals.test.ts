// What a new user types wrong, answered in-process as the CLI answers it: a typed refusal that
// names what was wrong and where, exit 1 (or 2 for usage), and nothing left behind.
import { existsSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../support/backends.js';
import { cli } from './in-process.js';

let dir: string;
beforeAll(() => {
  dir = tempDir('twinworld-input-refusals-');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A fresh root path under the test folder, not yet created. */
let roots = 0;
function freshRoot(): string {
  return join(dir, `root-${++roots}`);
}

describe('a log file that is not one', () => {
  it('a folder: LOG_FILE_UNREADABLE "is a folder, not a log file", for replay and import', async () => {
    const folder = join(dir, 'a-folder');
    mkdirSync(folder);
    const root = freshRoot();
    for (const args of [
      ['replay', folder],
      ['import', 'stripe', folder, '--root', root],
    ]) {
      const r = await cli(args);
      expect(r.stderr).toBe(
        `error LOG_FILE_UNREADABLE: ${folder}: is a folder, not a log file; pass a .jsonl file such as \`twinworld export\` writes (at file)\n`,
      );
      expect(r.status).toBe(1);
    }
    expect(existsSync(root)).toBe(false);
  });

  it('a missing file: "no such file" naming it, with --json too, and no root created', async () => {
    const missing = join(dir, 'nonexist.jsonl');
    const root = freshRoot();
    const r = await cli(['import', 'stripe', missing, '--root', root]);
    expect(r.stderr).toMatch(/^error LOG_FILE_UNREADABLE: .*nonexist\.jsonl: no such file; /);
    expect(r.status).toBe(1);
    expect(existsSync(root)).toBe(false);
    const j = await cli(['replay', missing, '--json']);
    expect(JSON.parse(j.stderr)).toMatchObject({
      error: 'LOG_FILE_UNREADABLE',
      path: 'file',
      details: { file: missing, reason: 'ENOENT' },
    });
    expect(j.status).toBe(1);
  });
});

describe('send --data', () => {
  const send = (root: string, data: string, type = 'customer.created', pack = 'stripe') => [
    'send',
    pack,
    type,
    '--to',
    'http://127.0.0.1:1/hooks',
    '--secret',
    'whsec_test',
    '--data',
    data,
    '--root',
    root,
  ];

  it('a key the event does not take: refused as trigger refuses it, before the root is created', async () => {
    const root = freshRoot();
    const r = await cli(send(root, '{"emial":1}'));
    expect(r.stderr).toBe(
      'error INVALID_ARGUMENT: --data key "emial" is not taken by stripe customer.created; it takes: email, name, description, phone, metadata, invoice_settings (at data.emial)\n',
    );
    expect(r.status).toBe(1);
    expect(existsSync(root)).toBe(false);
    const t = await cli([
      'trigger',
      'stripe',
      'customer.created',
      '--data',
      '{"emial":1}',
      '--root',
      root,
    ]);
    expect(t.stderr).toBe(r.stderr);
    const ping = await cli(send(root, '{"x":1}', 'ping', 'github'));
    expect(ping.stderr).toMatch(
      /"x" is not taken by github ping; it takes no --data \(at data\.x\)/,
    );
  });

  it('in a world that exists: nothing appended, no endpoint left behind', async () => {
    const root = freshRoot();
    expect(
      (await cli(['endpoints', 'add', 'stripe', '--url', 'http://127.0.0.1:1/x', '--root', root]))
        .status,
    ).toBe(0);
    const before = (await cli(['log', 'stripe', '--root', root, '--json'])).stdout;
    const r = await cli(send(root, '{"email":"ada@example.com","emial":1}'));
    expect(r.status).toBe(1);
    expect((await cli(['log', 'stripe', '--root', root, '--json'])).stdout).toBe(before);
    const listed = await cli(['endpoints', 'list', '--all', '--root', root, '--json']);
    expect(listed.json<unknown[]>()).toHaveLength(1);
  });
});

describe('endpoints add', () => {
  it('an event type the vendor does not send is refused before the root is created, for every pack', async () => {
    const cases: [string[], RegExp][] = [
      [['stripe'], /^error INVALID_ARGUMENT: stripe: enabled_events holds "customer\.creatd"/],
      [['slack'], /^error INVALID_ARGUMENT: slack: invalid_event: bot event "customer\.creatd"/],
      [['standard-webhooks'], /^error INVALID_ARGUMENT: standard-webhooks: filterTypes holds/],
      [
        ['github', '--repo', 'octo-org/hello-world'],
        /^error INVALID_ARGUMENT: github: .*"customer\.creatd" is not a GitHub webhook event name/,
      ],
      [['github'], /^error INVALID_ARGUMENT: github: .*give exactly one \(at repo\)/],
    ];
    for (const [pack, refusal] of cases) {
      const root = freshRoot();
      const r = await cli([
        'endpoints',
        'add',
        ...pack,
        '--url',
        'http://127.0.0.1:1/x',
        '--events',
        'customer.creatd',
        '--root',
        root,
      ]);
      expect(r.stderr).toMatch(refusal);
      expect(r.status).toBe(1);
      expect(existsSync(root), pack.join(' ')).toBe(false);
    }
  });
});

describe('--seed', () => {
  it('a whole number a double holds exactly; anything else is a usage error naming the range', async () => {
    for (const command of ['demo', 'walk']) {
      const file = command === 'walk' ? [join(dir, 'never-read.mjs')] : [];
      for (const seed of ['abc', '1.5', '-1', '99999999999999999999', '9007199254740992']) {
        const r = await cli([command, ...file, `--seed=${seed}`]);
        expect(r.stderr).toBe(
          `error USAGE: --seed must be an integer 0–9007199254740991, got "${seed}"; see \`twinworld ${command} --help\`\n`,
        );
        expect(r.status).toBe(2);
      }
    }
  });
});

describe('a world root that is not there', () => {
  const write = [
    '-d',
    '{"operation":"note.create","subjectType":"note","subjectId":"n1","fields":{}}',
  ];

  it('read commands on a twin agree with deliveries: ROOT_NOT_FOUND, and nothing created', async () => {
    const root = freshRoot();
    for (const args of [
      ['log', 'stripe'],
      ['verify', 'stripe'],
      ['state', 'stripe'],
      ['hash', 'stripe'],
      ['export', 'stripe'],
      ['deliveries'],
    ]) {
      const r = await cli([...args, '--root', root]);
      expect(r.stderr, args[0]).toMatch(
        /^error ROOT_NOT_FOUND: there is no world at .*check --root/,
      );
      expect(r.status).toBe(1);
    }
    expect(existsSync(root)).toBe(false);
    // A root that exists without the twin is still the twin's name to check.
    expect((await cli(['write', 'notes', ...write, '--root', root])).status).toBe(0);
    for (const cmd of ['log', 'verify', 'state', 'hash', 'export'])
      expect((await cli([cmd, 'stripe', '--root', root])).stderr, cmd).toMatch(
        /^error UNKNOWN_TWIN: no twin "stripe" in the world at .* \(it holds: notes\)/,
      );
  });

  it('a symbolic link to nothing: says the link points at nothing, for a write and a read', async () => {
    const link = join(dir, 'dangling');
    const target = join(dir, 'nowhere');
    symlinkSync(target, link);
    for (const args of [
      ['write', 'notes', ...write],
      ['log', 'notes'],
    ]) {
      const r = await cli([...args, '--root', link]);
      expect(r.stderr).toBe(
        `error ROOT_NOT_FOUND: the world root ${link} is a symbolic link to ${target}, which does not exist: the link points at nothing; create ${target}, or point --root at a folder (at root)\n`,
      );
      expect(r.status).toBe(1);
    }
    expect(existsSync(target)).toBe(false);
  });
});

describe('send --list', () => {
  it('takes a pack as trigger --list does: that pack only, an unknown one refused', async () => {
    const all = (await cli(['send', '--list', '--json'])).json<{ pack: string }[]>();
    const slack = await cli(['send', '--list', 'slack', '--json']);
    expect(slack.status).toBe(0);
    const listed = slack.json<{ pack: string }[]>();
    expect(listed.length).toBeGreaterThan(0);
    expect(listed.length).toBeLessThan(all.length);
    expect(listed).toEqual(all.filter((s) => s.pack === 'slack'));
    const text = await cli(['send', '--list', 'slack']);
    expect(text.stdout.split('\n').filter((l) => l.startsWith('slack ')).length).toBe(
      listed.length,
    );
    expect(text.stdout).not.toMatch(/^stripe /m);
    const unknown = await cli(['send', '--list', 'slak']);
    expect(unknown.stderr).toMatch(/^error UNKNOWN_PACK: unknown pack "slak"; valid packs: /);
    expect(unknown.status).toBe(1);
    expect((await cli(['send', '--list', 'slack', 'message'])).status).toBe(2);
  });
});

describe('what a first session trips over', () => {
  const write = JSON.stringify({
    operation: 'customer.create',
    subjectType: 'customer',
    subjectId: 'cus_1',
    fields: {},
  });

  it('write with nothing on stdin is a usage error saying so, not "Unexpected end of JSON input"', async () => {
    const root = freshRoot();
    const r = await cli(['write', 'stripe', '--root', root]);
    expect(r.stderr).toBe(
      "error USAGE: stdin was empty: give the write with --data '<json>' or pipe it on stdin; see `twinworld write --help`\n",
    );
    expect(r.status).toBe(2);
    expect(existsSync(root)).toBe(false);
  });

  it('log --limit 0 is a usage error, as every other --limit, not "no entries" of a twin that has them', async () => {
    const root = freshRoot();
    expect((await cli(['write', 'stripe', '--root', root, '--data', write])).status).toBe(0);
    const r = await cli(['log', 'stripe', '--root', root, '--limit', '0']);
    expect(r.stderr).toMatch(/^error USAGE: --limit must be an integer 1 or more, got "0"/);
    expect(r.status).toBe(2);
    expect((await cli(['log', 'stripe', '--root', root, '--limit', '1'])).stdout).toContain(
      'customer/cus_1',
    );
  });

  it('a root whose twins folder is a file names that file, for a write and a read', async () => {
    const root = freshRoot();
    mkdirSync(root);
    writeFileSync(join(root, 'twins'), 'not a folder');
    for (const args of [
      ['write', 'stripe', '--data', write],
      ['log', 'stripe'],
    ]) {
      const r = await cli([...args, '--root', root]);
      // Was: "a part of its path is a file … pass a folder with --root", of a root that is one.
      expect(r.stderr).toBe(
        `error ROOT_NOT_A_FOLDER: the world root ${root} cannot be used: ${join(root, 'twins')} is a file, but the root keeps its twins' logs in that folder; move the file out of the root, or pass another --root (at root)\n`,
      );
      expect(r.status).toBe(1);
    }
  });

  it('walk given a folder says so, not "Directory import … is not supported"', async () => {
    const folder = join(dir, 'walks');
    mkdirSync(folder);
    const r = await cli(['walk', folder]);
    expect(r.stderr).toBe(
      `error INVALID_ARGUMENT: ${folder} is a folder; give the walk module in it, e.g. twinworld walk ${join(folder, 'my-walk.mjs')} (at file)\n`,
    );
    expect(r.status).toBe(1);
  });
});
