// `twinworld up` as a user starts it: a child process on a fresh SQLite root prints the client
// lines; the unmodified stripe package pasted from its line creates a customer, Octokit from its
// own reads the sample user; the clock control moves the world clock; SIGTERM stops it cleanly;
// the other commands see what the API wrote. Bad flags are usage errors.
import { spawn, spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { resolve } from 'node:path';
import { Octokit } from '@octokit/rest';
import Stripe from 'stripe';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../support/backends.js';

const BIN = resolve('dist/src/cli/main.js');
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

describe('twinworld up', () => {
  it('prints the client line; stripe-node pasted from it works; SIGTERM stops it', async () => {
    const root = tempDir('twinworld-up-');
    dirs.push(root);
    const child = spawn(process.execPath, [BIN, 'up', '--root', root, '--json'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    const lines = createInterface({ input: child.stdout! });
    const iterator = lines[Symbol.asyncIterator]();
    try {
      const first = JSON.parse(String((await iterator.next()).value)) as {
        event: string;
        port: number;
        url: string;
        stripe: { client: string };
        github: { client: string; baseUrl: string };
      };
      expect(first.event).toBe('listening');
      expect(first.stripe.client).toBe(
        `new Stripe('sk_test_twinworld', { host: '127.0.0.1', port: ${first.port}, protocol: 'http' })`,
      );
      const stripe = new Stripe('sk_test_twinworld', {
        host: '127.0.0.1',
        port: first.port,
        protocol: 'http',
      });
      const c = await stripe.customers.create({ email: 'up@example.com' });
      expect((await stripe.customers.retrieve(c.id)) as Stripe.Customer).toMatchObject({
        email: 'up@example.com',
      });
      // the GitHub line works as pasted: its token is the sample user's, its baseUrl the host's
      expect(first.github.baseUrl).toBe(`${first.url}/github`);
      const auth = /auth: '(ghp_[A-Za-z0-9]+)'/.exec(first.github.client)![1]!;
      const octokit = new Octokit({ auth, baseUrl: first.github.baseUrl });
      const me = await octokit.rest.users.getAuthenticated();
      expect(me.data).toMatchObject({ login: 'octocat', url: `${first.url}/github/users/octocat` });
      const clock = await fetch(`${first.url}/_twinworld/clock`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ advance_ms: 3_600_000 }),
      });
      expect(await clock.json()).toMatchObject({ virtual: true });
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
    // the built-in stripe twin holds the customer: the CLI's state command sees it
    const state = spawnSync(process.execPath, [BIN, 'state', 'stripe', '--root', root, '--json'], {
      encoding: 'utf8',
    });
    expect(state.status).toBe(0);
    expect(state.stdout).toContain('up@example.com');
    expect(state.stdout).not.toContain('sk_test_twinworld');
  });

  it('refuses bad flags as usage errors', () => {
    for (const args of [
      ['--clock', 'sometimes'],
      ['--key', 'sk_live_x'],
      ['--port', '70000'],
    ]) {
      const r = spawnSync(process.execPath, [BIN, 'up', ...args, '--root', ':memory:'], {
        encoding: 'utf8',
      });
      expect(r.status).toBe(2);
    }
  });
});
