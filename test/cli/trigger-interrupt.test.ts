// `trigger --count` as a user stops it: a count over the documented maximum is a usage error
// before anything is written, and Ctrl-C (SIGINT to the built binary) stops between runs, prints
// every delivery the runs so far queued and exits 130 — the printed list is exactly what the
// world holds, so nothing queued goes unreported.
import { spawn } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_COUNT } from '../../src/cli/commands/trigger.js';
import { tempDir } from '../support/backends.js';
import { cli } from './in-process.js';

const BIN = resolve('dist/src/cli/main.js');
let dir: string;

beforeAll(() => {
  dir = tempDir('twinworld-trigger-interrupt-');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function deliveryIds(root: string): Promise<string[]> {
  const r = await cli(['deliveries', '--root', root, '--json']);
  if (r.status !== 0) return [];
  return r.json<{ id: string }[]>().map((d) => d.id);
}

describe('trigger --count', () => {
  it(`is at most ${MAX_COUNT}: more is a usage error naming the range, and nothing is written`, async () => {
    const root = join(dir, 'too-many');
    const r = await cli([
      'trigger',
      'stripe',
      'customer.created',
      '--count',
      '100000000',
      '--root',
      root,
    ]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(
      new RegExp(`^error USAGE: --count must be an integer 1–${MAX_COUNT}, got "100000000"`),
    );
    expect(existsSync(root)).toBe(false);
    expect((await cli(['trigger', '--help'])).stdout).toContain(`at most ${MAX_COUNT}`);
  });

  it('SIGINT between runs: prints what the runs so far queued, exits 130', async () => {
    const root = join(dir, 'interrupted');
    const added = await cli([
      'endpoints',
      'add',
      'stripe',
      '--url',
      'http://127.0.0.1:1/hooks',
      '--root',
      root,
    ]);
    expect(added.status).toBe(0);
    const child = spawn(
      process.execPath,
      [BIN, 'trigger', 'stripe', 'customer.created', '--count', String(MAX_COUNT), '--root', root],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
    // Interrupt once the child has queued something (a record in the store), mid-loop.
    while ((await deliveryIds(root)).length === 0)
      await new Promise((resolve) => setTimeout(resolve, 20));
    child.kill('SIGINT');
    const code = await exited;
    expect(stderr).toBe('');
    expect(code).toBe(130);
    const match =
      /^stripe customer\.created: stopped at run (\d+) of 10000 \(SIGINT\); (\d+) queued before it: (.*)\n$/.exec(
        stdout,
      );
    expect(match, stdout.slice(0, 300)).not.toBeNull();
    const printed = match![3]!.split(', ');
    expect(printed.length).toBe(Number(match![2]));
    expect(Number(match![1])).toBe(printed.length + 1);
    expect(printed.length).toBeLessThan(MAX_COUNT);
    expect(new Set(printed)).toEqual(new Set(await deliveryIds(root)));
  });
});
