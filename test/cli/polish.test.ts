// What people expect of a CLI: --version, shell completion generated from the command table (and
// accepted by the real shells' parsers), colour only on a terminal without NO_COLOR, and progress
// lines only on a terminal and never with --json.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { CliIO } from '../../src/cli/command.js';
import { colourOn, painter } from '../../src/cli/colour.js';
import { statusLine } from '../../src/cli/output.js';
import { runCli } from '../../src/cli/run.js';
import { cli } from './in-process.js';

function io(tty: boolean, env: Record<string, string | undefined> = {}) {
  const stderr = new PassThrough();
  let err = '';
  stderr.on('data', (c: Buffer) => (err += c.toString()));
  const value: CliIO = {
    stdin: new PassThrough(),
    stdout: new PassThrough(),
    stderr,
    isTTY: { stdin: tty, stdout: tty, stderr: tty },
    env,
  };
  return { io: value, err: () => err };
}

describe('twinworld --version', () => {
  it("prints the package's version", async () => {
    const { version } = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
    for (const flag of ['--version', '-V']) {
      const r = await cli([flag]);
      expect(r.status).toBe(0);
      expect(r.stdout).toBe(`twinworld ${version}\n`);
    }
  });
});

describe('twinworld completion', () => {
  it('bash: every command and its options, and bash parses it', async () => {
    const r = await cli(['completion', 'bash']);
    expect(r.status).toBe(0);
    for (const word of ['console', 'tail', 'listen', 'redeliver', '--forward-to', '--store'])
      expect(r.stdout).toContain(word);
    const parsed = spawnSync('bash', ['-n'], { input: r.stdout });
    expect(parsed.status, parsed.stderr.toString()).toBe(0);
    // Sourced in a real bash, it completes a subcommand.
    const run = spawnSync('bash', [
      '-c',
      `${r.stdout}\nCOMP_WORDS=(twinworld lis); COMP_CWORD=1; _twinworld; echo "\${COMPREPLY[@]}"`,
    ]);
    expect(run.stdout.toString().trim()).toBe('listen');
  });

  it('zsh and fish', async () => {
    expect((await cli(['completion', 'zsh'])).stdout).toContain('bashcompinit');
    const fish = (await cli(['completion', 'fish'])).stdout;
    expect(fish).toContain(
      "complete -c twinworld -n '__fish_seen_subcommand_from listen' -l forward-to",
    );
  });

  it('refuses an unknown shell or none as a usage error', async () => {
    for (const args of [['completion'], ['completion', 'tcsh'], ['completion', 'bash', 'zsh']]) {
      const r = await cli(args);
      expect(r.status).toBe(2);
      expect(r.stderr).toMatch(/^error USAGE: completion takes one shell: bash, zsh, fish/);
      expect(r.stdout).toBe('');
    }
  });
});

describe('colour and progress', () => {
  it('colour only on a terminal, never with NO_COLOR set or --json', () => {
    expect(colourOn(io(true).io)).toBe(true);
    expect(colourOn(io(true, { NO_COLOR: '1' }).io)).toBe(false);
    expect(colourOn(io(true, { NO_COLOR: '' }).io)).toBe(true);
    expect(colourOn(io(false).io)).toBe(false);
    expect(colourOn(io(true).io, true)).toBe(false);
    expect(painter(true)('green', 'ok')).toBe('\x1b[32mok\x1b[0m');
    expect(painter(false)('green', 'ok')).toBe('ok');
  });

  it('a progress line on a terminal only, never with --json', () => {
    const tty = io(true);
    const line = statusLine(tty.io, false);
    line.show('triggering 1 of 3');
    line.done();
    expect(tty.err()).toBe('\rtriggering 1 of 3\x1b[K\r\x1b[K');
    for (const [t, json] of [
      [false, false],
      [true, true],
    ] as const) {
      const quiet = io(t);
      const l = statusLine(quiet.io, json);
      l.show('x');
      l.done();
      expect(quiet.err()).toBe('');
    }
  });

  it('trigger --count shows its progress on a terminal, and not when piped', async () => {
    const { mkdtempSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const root = mkdtempSync(join(tmpdir(), 'twinworld-polish-'));
    try {
      const tty = io(true);
      expect(
        await runCli(
          ['trigger', 'stripe', 'customer.created', '--count', '3', '--root', root],
          tty.io,
        ),
      ).toBe(0);
      expect(tty.err()).toContain('triggering customer.created: 0 of 3');
      const piped = io(false);
      expect(
        await runCli(
          ['trigger', 'stripe', 'customer.created', '--count', '3', '--root', root],
          piped.io,
        ),
      ).toBe(0);
      expect(piped.err()).toBe('');
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
