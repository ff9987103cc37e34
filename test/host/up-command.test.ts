// `twinworld up` as a user starts it: a child process on a fresh SQLite root prints the client
// lines; the unmodified stripe package pasted from its line creates a customer, Octokit from its
// own reads the sample user; the clock control moves the world clock; SIGTERM stops it cleanly;
// the other commands see what the API wrote. Beside it, `listen --forward-to` stopped while the app
// still answers an attempt up made waits for it and prints its line, leaves its endpoint disabled
// and nothing more sent to it; both exit 0 promptly. Bad flags are usage errors.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { resolve } from 'node:path';
import { Octokit } from '@octokit/rest';
import Stripe from 'stripe';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../support/backends.js';
import { start } from '../support/cli-process.js';
import { startReceiver } from '../support/receiver.js';

const BIN = resolve('dist/src/cli/main.js');
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

async function until(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const end = Date.now() + 20_000;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out: ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** The exit status of a child sent `signal`; fails if it has not exited within 5 s of it. */
function exitOf(child: ChildProcess, signal: string): Promise<number | null> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve, reject) => {
    const late = setTimeout(() => reject(new Error(`still running 5 s after ${signal}`)), 5_000);
    child.once('exit', (status) => {
      clearTimeout(late);
      resolve(status);
    });
  });
}

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

  it('beside listen: Ctrl-C on listen waits for the attempt up is making and prints it, disables its endpoint, nothing more is sent; both exit 0 promptly', async () => {
    const root = tempDir('twinworld-up-listen-');
    dirs.push(root);
    let answer: () => void = () => {};
    const answered = new Promise<void>((r) => (answer = r));
    const app = await startReceiver(async (r) => {
      if (r.url === '/listen') await answered;
      return 200;
    });
    const up = start(['up', '--root', root, '--json']);
    // listen reads the log only when stopped, so the attempt to its endpoint is surely up's.
    const listen = start([
      'listen',
      'stripe',
      '--forward-to',
      `${app.url}/listen`,
      '--json',
      '--poll',
      '600000',
      '--root',
      root,
    ]);
    try {
      const { url, port } = JSON.parse((await up.waitFor(/^\{"event":"listening".*$/m))[0]) as {
        url: string;
        port: number;
      };
      const { endpoint } = JSON.parse((await listen.waitFor(/^\{"ready".*$/m))[0]) as {
        endpoint: string;
      };
      expect((await (await fetch(`${url}/_twinworld/health`)).json()) as unknown).toMatchObject({
        ok: true,
        store: 'sqlite',
      });
      const stripe = new Stripe('sk_test_twinworld', { host: '127.0.0.1', port, protocol: 'http' });
      await stripe.customers.create({ email: 'first@example.com' });
      await until(() => app.requests.length === 1, 'up sent customer.created to listen');

      listen.child.kill('SIGINT');
      await until(
        async () => (await stripe.webhookEndpoints.retrieve(endpoint)).status === 'disabled',
        "listen's endpoint disabled",
      );
      expect(listen.child.exitCode).toBeNull();
      answer();
      // Not interrupt(): a second SIGINT would stop it the default way, as a second Ctrl-C does.
      expect(await exitOf(listen.child, 'SIGINT')).toBe(0);
      const printed = listen
        .stdout()
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(printed.slice(1)).toMatchObject([
        { eventType: 'customer.created', status: 200, outcome: 'succeeded' },
        { retired: true, endpoint },
      ]);

      // up still sends, to an endpoint of the app's own, and nothing more to listen's.
      await stripe.webhookEndpoints.create({ url: `${app.url}/own`, enabled_events: ['*'] });
      await stripe.customers.create({ email: 'second@example.com' });
      await until(() => app.requests.some((r) => r.url === '/own'), 'up sent to /own');
      expect(app.requests.filter((r) => r.url === '/listen')).toHaveLength(1);
      up.child.kill('SIGTERM');
      expect(await exitOf(up.child, 'SIGTERM')).toBe(0);
      expect(up.stdout()).toMatch(/\{"event":"stopped"\}\n$/);
    } finally {
      answer();
      up.child.kill('SIGKILL');
      listen.child.kill('SIGKILL');
      await app.close();
    }
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
