// One rule for every flag of every command: a malformed value is a usage error (exit 2, one line
// ending in where help is), checked before any world is opened. The table below names every
// string flag the command table declares; a flag added without a row here fails the first test.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { COMMON_OPTIONS } from '../../src/cli/command.js';
import { COMMAND_NAMES, loadCommands } from '../../src/cli/command-table.js';
import { parseFlagValue } from '../../src/cli/flags.js';
import { cli } from './in-process.js';

/** A value each string flag refuses, or null for free text that has no malformed form. */
const BAD: Readonly<Record<string, Readonly<Record<string, string | null>>>> = {
  '*': { root: '', store: '' },
  demo: { seed: '' },
  walk: { seed: '', start: 'yesterday', save: '' },
  write: { data: '{bad' },
  log: { after: '-1', limit: 'ten' },
  state: { type: '' },
  hash: {},
  export: { out: '' },
  import: {},
  replay: { expect: '' },
  verify: {},
  send: { to: 'ftp://127.0.0.1/x', secret: '', data: '{bad' },
  endpoints: {
    url: 'http://127.0.0.1/\r\nX-Injected: 1',
    secret: '',
    events: null,
    pack: '',
    repo: '',
    org: '',
    team: '',
  },
  trigger: { count: '0', data: '[1]' },
  deliveries: { state: 'nope', pack: '' },
  attempts: {},
  recover: { 'stale-after': 'abc' },
  redeliver: { to: 'http://127.0.0.1/\nx' },
  console: { port: '70000', clock: 'noon', poll: '0' },
  tail: { twin: '', type: '', poll: 'fast' },
  listen: { 'forward-to': 'not a url', events: null, poll: '-1', repo: '', org: '', team: '' },
  work: { concurrency: '0', 'claim-ahead': '-1', lease: 'abc' },
  up: { port: '65536', key: '', clock: 'sundial' },
  serve: {
    endpoint: '',
    config: '',
    port: '65536',
    'tick-every': '1.5',
    'max-connections': 'lots',
    'headers-timeout': '1.5',
    'body-timeout': '-3',
    'retention-days': '0',
    lease: 'abc',
  },
  triggers: { tenant: 'no spaces', limit: '0', prune: 'x' },
  dispatches: { state: 'nope', tenant: '-bad', limit: '0' },
  tick: { config: '', tenant: 'a b', now: 'x' },
  schedules: {
    tenant: 'a b',
    cron: '',
    tz: '',
    routine: '',
    input: '{bad',
    overlap: 'sometimes',
    'catch-up': 'all:0',
    revision: 'r1',
    next: '0',
    outcome: 'nope',
    run: '',
    limit: '1001',
    cursor: 'not a cursor',
    before: 'x',
    from: 'soon',
    to: '2026-13-45',
  },
};

// The CLI loads one command per process (src/cli/command-table.ts); the table is read whole here.
const COMMANDS = await loadCommands();

const dir = mkdtempSync(join(tmpdir(), 'twinworld-flags-'));
const missingRoot = join(dir, 'never-created');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function stringFlags(): string[] {
  const out: string[] = [];
  for (const command of COMMANDS)
    for (const [flag, spec] of Object.entries({ ...command.options, ...COMMON_OPTIONS }))
      if (spec.type === 'string')
        out.push(`${Object.hasOwn(COMMON_OPTIONS, flag) ? '*' : command.name} --${flag}`);
  return [...new Set(out)].sort();
}

const rows = Object.entries(BAD).flatMap(([command, flags]) =>
  Object.entries(flags).map(([flag, bad]) => ({ command, flag, bad })),
);

describe('flag values', () => {
  it('the lazy command table loads each command under the name it is looked up by', () => {
    expect(COMMANDS.map((c) => c.name)).toEqual(COMMAND_NAMES);
  });

  it('the table names every string flag of every command, and nothing else', () => {
    expect(rows.map((r) => `${r.command} --${r.flag}`).sort()).toEqual(stringFlags());
  });

  const refused = rows.flatMap((r) =>
    r.bad === null
      ? []
      : r.command === '*'
        ? COMMANDS.map((c) => ({ command: c.name, flag: r.flag, bad: r.bad! }))
        : [{ command: r.command, flag: r.flag, bad: r.bad }],
  );

  it.each(refused)('$command --$flag=$bad is a usage error (2), one line', async (r) => {
    const where = r.flag === 'root' || r.flag === 'store' ? [] : ['--root', missingRoot];
    const res = await cli([r.command, `--${r.flag}=${r.bad}`, ...where]);
    expect(res.status).toBe(2);
    expect(res.stdout).toBe('');
    expect(res.stderr).toMatch(
      new RegExp(
        `^error USAGE: [^\\n]*--${r.flag}[^\\n]*; see \`twinworld ${r.command} --help\`\\n$`,
      ),
    );
    expect(existsSync(missingRoot)).toBe(false);
  });

  it('a switch given a value is a usage error on every command', async () => {
    for (const command of COMMANDS)
      for (const [flag, spec] of Object.entries({ ...command.options, ...COMMON_OPTIONS })) {
        if (spec.type !== 'boolean') continue;
        const res = await cli([command.name, `--${flag}=yes`]);
        expect(res.status, `${command.name} --${flag}`).toBe(2);
        expect(res.stderr).toBe(
          `error USAGE: --${flag} is a switch and takes no value; write --${flag} alone; see \`twinworld ${command.name} --help\`\n`,
        );
      }
  });

  it("says what to type instead of node's parser messages", async () => {
    const ambiguous = await cli(['trigger', 'stripe', 'customer.created', '--data', '--x']);
    expect(ambiguous.status).toBe(2);
    expect(ambiguous.stderr).toBe(
      'error USAGE: --data is followed by something that looks like an option; if that is its value, write --data=VALUE; see `twinworld trigger --help`\n',
    );
    const missing = await cli(['log', 'stripe', '--limit']);
    expect(missing.stderr).toBe(
      'error USAGE: --limit needs a value, e.g. --limit VALUE; see `twinworld log --help`\n',
    );
    const unknown = await cli(['log', 'stripe', '--bogus']);
    expect(unknown.stderr).toMatch(
      /^error USAGE: unknown option --bogus[^\n]*; see `twinworld log --help`\n$/,
    );
    const json = await cli(['log', 'stripe', '--limit=x', '--json']);
    expect(JSON.parse(json.stderr)).toEqual({
      error: 'USAGE',
      message: '--limit must be an integer 1 or more, got "x"',
      help: 'see `twinworld log --help`',
    });
  });

  it('serve --tick-every 0 is taken, as its help offers ("0: never")', async () => {
    const res = await cli([
      'serve',
      '--endpoint',
      'stripe=TWINWORLD_TEST_UNSET_SECRET',
      '--tick-every',
      '0',
      '--root',
      join(dir, 'w4'),
      '--json',
    ]);
    // Past the flag layer: refused only for the secret variable nobody set.
    expect(res.status).toBe(1);
    expect(JSON.parse(res.stderr)).toMatchObject({ error: 'INVALID_CONFIG' });
  });

  it('a time flag names a real instant: no rolled-over date, no time read in the host zone', async () => {
    for (const [value, says] of [
      ['2026-02-30', 'is not a time on the calendar'],
      ['2026-04-31T03:00:00Z', 'is not a time on the calendar'],
      ['2026-03-01T24:00:00Z', 'is not a time on the calendar'],
      ['2026-03-01T03:00', 'has no time zone'],
      ['2026-03-01T03:00:00.5', 'has no time zone'],
    ] as const) {
      const res = await cli(['schedules', 'prune', '--before', value, '--root', join(dir, 'w2')]);
      expect(res.status, value).toBe(2);
      expect(res.stderr, value).toContain(`--before ${JSON.stringify(value)} ${says}`);
    }
    // A date is midnight UTC; a time without seconds, or with an offset, is the instant it names.
    expect(parseFlagValue('now', { kind: 'time' }, '2026-02-28')).toBe('2026-02-28T00:00:00.000Z');
    expect(parseFlagValue('now', { kind: 'time' }, '2026-03-01T04:00+01:00')).toBe(
      '2026-03-01T03:00:00.000Z',
    );
    expect(parseFlagValue('now', { kind: 'time' }, '2028-02-29T23:59:59.250Z')).toBe(
      '2028-02-29T23:59:59.250Z',
    );
  });

  it("every command's usage line names --store (replay reads a file, not a store)", () => {
    for (const command of COMMANDS)
      if (command.name !== 'replay') expect(command.usage, command.name).toContain('--store URL');
  });

  it('a refusal by the kernel stays exit 1', async () => {
    const res = await cli(['redeliver', 'dlv_nope', '--root', join(dir, 'w1')]);
    expect(res.status).toBe(1);
    expect(res.stderr).toMatch(/^error [A-Z_]+: /);
  });
});
