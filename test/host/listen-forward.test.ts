// `twinworld listen` as a user runs it, past the happy path of tail-listen-processes.test.ts: a
// Ctrl-C while the app is still answering (the attempt finishes and its line is printed), a GitHub
// hook on a repository (--repo), and refusals that leave no root behind. Real child processes, a
// loopback app, every GitHub packet verified with @octokit/webhooks-methods.
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { verify as octokitVerify } from '@octokit/webhooks-methods';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../support/backends.js';
import { start, tw } from '../support/cli-process.js';
import { startReceiver, type Receiver } from '../support/receiver.js';

let dir: string;
let app: Receiver;
/** The app's answers wait for this; a test releases it when it wants the attempt to end. */
let release: () => void = () => {};
let held = Promise.resolve();

beforeAll(async () => {
  dir = tempDir('twinworld-listen-forward-');
  app = await startReceiver(async () => {
    await held;
    return 200;
  });
});
afterAll(async () => {
  release();
  await app.close();
  rmSync(dir, { recursive: true, force: true });
});

async function until(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const end = Date.now() + 20_000;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out: ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const lines = (text: string) =>
  text
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe('listen --forward-to', () => {
  it('on Ctrl-C while the app is still answering, finishes the attempt and prints its line', async () => {
    const root = join(dir, 'inflight');
    held = new Promise((r) => (release = r));
    const listen = start([
      'listen',
      'stripe',
      '--forward-to',
      `${app.url}/slow`,
      '--json',
      '--poll',
      '20',
      '--root',
      root,
    ]);
    const ready = JSON.parse((await listen.waitFor(/^\{"ready".*$/m))[0]) as { endpoint: string };
    expect((await tw(['trigger', 'stripe', 'customer.created', '--root', root])).status).toBe(0);
    await until(() => app.requests.length === 1, 'the app got the event');

    listen.child.kill('SIGINT');
    // The endpoint is disabled first: once it is, the listener is on its way out.
    await until(async () => {
      const listed = await tw(['endpoints', 'list', 'stripe', '--json', '--root', root]);
      return (JSON.parse(listed.stdout) as { enabled: boolean }[]).every((e) => !e.enabled);
    }, 'the endpoint disabled');
    const exited = new Promise<number | null>((done) => {
      if (listen.child.exitCode !== null) done(listen.child.exitCode);
      else listen.child.once('exit', (status) => done(status));
    });
    release();
    // Not interrupt(): a second SIGINT would stop it the default way, as a second Ctrl-C does.
    expect(await exited).toBe(0);

    const printed = lines(listen.stdout());
    expect(printed.filter((l) => 'attempt' in l)).toMatchObject([
      { eventType: 'customer.created', status: 200, outcome: 'succeeded' },
    ]);
    expect(printed.at(-1)).toEqual({ retired: true, endpoint: ready.endpoint });
    const deliveries = JSON.parse((await tw(['deliveries', '--json', '--root', root])).stdout) as {
      state: string;
    }[];
    expect(deliveries.map((d) => d.state)).toEqual(['succeeded']);
  });

  it('forwards a GitHub repository hook (--repo): its ping and the events, signed with the printed secret', async () => {
    const root = join(dir, 'github');
    held = Promise.resolve();
    // The sample repository the first GitHub trigger makes.
    expect((await tw(['trigger', 'github', 'ping', '--root', root])).status).toBe(0);
    const listen = start([
      'listen',
      'github',
      '--forward-to',
      `${app.url}/gh`,
      '--repo',
      'octo-org/hello-world',
      '--json',
      '--poll',
      '20',
      '--root',
      root,
    ]);
    const ready = JSON.parse((await listen.waitFor(/^\{"ready".*$/m))[0]) as { secret: string };
    expect((await tw(['trigger', 'github', 'issues.opened', '--root', root])).status).toBe(0);
    await until(
      () => lines(listen.stdout()).filter((l) => 'attempt' in l).length === 2,
      'two attempt lines',
    );
    expect(await listen.interrupt()).toBe(0);
    const attempts = lines(listen.stdout()).filter((l) => 'attempt' in l);
    expect(attempts.map((a) => [a.eventType, a.status])).toEqual([
      ['ping', 200],
      ['issues.opened', 200],
    ]);
    const ours = app.requests.filter((r) => r.url === '/gh');
    expect(ours).toHaveLength(2);
    for (const r of ours)
      expect(
        await octokitVerify(ready.secret, r.body, String(r.headers['x-hub-signature-256'])),
      ).toBe(true);
  });

  it('says, per failed attempt, whether and when it is tried again: an app answering 500, one that is down', async () => {
    const root = join(dir, 'failing');
    const failing = await startReceiver(() => 500);
    // A port nothing listens on: opened, then closed.
    const gone = await startReceiver();
    const downUrl = `${gone.url}/down`;
    await gone.close();
    try {
      const text = start([
        'listen',
        'stripe',
        '--forward-to',
        failing.url,
        '--poll',
        '20',
        '--root',
        root,
      ]);
      await text.waitFor(/^Ready!/m);
      const json = start([
        'listen',
        'stripe',
        '--forward-to',
        downUrl,
        '--json',
        '--poll',
        '20',
        '--root',
        root,
      ]);
      await json.waitFor(/^\{"ready".*$/m);
      expect((await tw(['trigger', 'stripe', 'customer.created', '--root', root])).status).toBe(0);
      const [line] = await text.waitFor(/^→ 500 .*$/m);
      expect(line).toMatch(
        /^→ 500 customer\.created evt_\w+ \d+ ms \(retry at \d{4}-\d\d-\d\dT[\d:.]+Z\)$/,
      );
      await json.waitFor(/^\{"attempt".*$/m);
      const [attempt] = lines(json.stdout()).filter((l) => 'attempt' in l);
      expect(attempt).toMatchObject({
        status: null,
        outcome: 'failed',
        reason: 'not_sent',
        deliveryState: 'retrying',
      });
      expect(Date.parse(String(attempt!.nextAttemptAt))).toBeGreaterThan(Date.now());
      expect(await text.interrupt()).toBe(0);
      expect(await json.interrupt()).toBe(0);
    } finally {
      await failing.close();
    }
  });

  it('when the reader of its output goes away (listen | head -1), disables the endpoint and ends cleanly', async () => {
    const root = join(dir, 'piped');
    held = Promise.resolve();
    const listen = start([
      'listen',
      'stripe',
      '--forward-to',
      `${app.url}/piped`,
      '--json',
      '--poll',
      '20',
      '--root',
      root,
    ]);
    await listen.waitFor(/^\{"ready".*$/m);
    const exited = new Promise<number | null>((done) => listen.child.once('exit', done));
    // As `head -1` does once it has its line: the read end of the pipe closes.
    listen.child.stdout.destroy();
    expect((await tw(['trigger', 'stripe', 'customer.created', '--root', root])).status).toBe(0);
    // No SIGINT: the next line it writes meets EPIPE, and that alone ends it.
    expect(await exited).toBe(0);
    expect(listen.stderr()).toBe('');
    const listed = await tw(['endpoints', 'list', 'stripe', '--json', '--root', root]);
    expect((JSON.parse(listed.stdout) as { enabled: boolean }[]).map((e) => e.enabled)).toEqual([
      false,
    ]);
  });

  it('refuses what the endpoint cannot be, before any root is made', async () => {
    const root = join(dir, 'never');
    const noScope = await tw(['listen', 'github', '--forward-to', app.url, '--root', root]);
    expect(noScope.status).toBe(1);
    expect(noScope.stderr).toMatch(
      /^error INVALID_ARGUMENT: github: .*one repository \(--repo owner\/name\) or one organization \(--org login\)/,
    );
    const foreign = await tw([
      'listen',
      'stripe',
      '--forward-to',
      app.url,
      '--repo',
      'a/b',
      '--root',
      root,
    ]);
    expect(foreign.status).toBe(2);
    expect(foreign.stderr).toMatch(/^error USAGE: --repo is not an option of stripe endpoints/);
    const badEvent = await tw([
      'listen',
      'stripe',
      '--forward-to',
      app.url,
      '--events',
      'customer.nope',
      '--root',
      root,
    ]);
    expect(badEvent.status).toBe(1);
    expect(badEvent.stderr).toMatch(/^error INVALID_ARGUMENT: stripe: enabled_events holds/);
    expect(existsSync(root)).toBe(false);
  });
});
