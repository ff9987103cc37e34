// Deferred dispatch through the built `twinworld serve`: two serve processes on one SQLite root,
// a route with a debounce in the configuration, a burst of 20 signed webhooks over both — each
// answered 202 with the dispatch's Location — runs the record routine once, with the last payload,
// after the quiet period; `twinworld dispatches` reads it afterwards.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Stripe from 'stripe';
import { afterAll, describe, expect, it } from 'vitest';

const BIN = resolve('dist/src/cli/main.js');
const SECRET = 'whsec_deferredServeCli000000000000001';
const stripe = new Stripe('sk_test_x');
const dir = mkdtempSync(join(tmpdir(), 'twinworld-deferred-serve-'));
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

function serve(
  root: string,
  config: string,
): Promise<{ url: string; stop: () => Promise<unknown> }> {
  const child = spawn(
    process.execPath,
    [BIN, 'serve', '--config', config, '--root', root, '--json'],
    {
      env: { ...process.env, TW_STRIPE_SECRET: SECRET },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  children.push(child);
  const exited = new Promise((r) => child.on('exit', (code) => r(code)));
  return new Promise((resolveUrl, reject) => {
    let out = '';
    child.stdout!.setEncoding('utf8').on('data', (c: string) => {
      out += c;
      const line = out.split('\n')[0]!;
      if (out.includes('\n') && line.startsWith('{'))
        resolveUrl({
          url: (JSON.parse(line) as { url: string }).url,
          stop: () => {
            child.kill('SIGTERM');
            return exited;
          },
        });
    });
    child.on('exit', (code) => reject(new Error(`serve exited ${String(code)}`)));
  });
}

describe('twinworld serve with a deferred route', () => {
  it('coalesces a burst over two serve processes into one run, answering 202 with a Location', async () => {
    const root = join(dir, 'world');
    const config = join(dir, 'serve.json');
    writeFileSync(
      config,
      JSON.stringify({
        tenants: [
          { id: 'acme', endpoints: [{ provider: 'stripe', secretEnv: 'TW_STRIPE_SECRET' }] },
        ],
        routes: [
          {
            triggerId: 'stripe.webhook',
            dispatch: { debounce: { key: 'payload.body.data.object.id', period: 1_000 } },
          },
        ],
      }),
    );
    const a = await serve(root, config);
    const b = await serve(root, config);
    const answers: { status: number; location: string | null; body: Record<string, unknown> }[] =
      [];
    for (let i = 0; i < 20; i++) {
      const body = JSON.stringify({
        id: `evt_cli_burst_${i}`,
        object: 'event',
        type: 'customer.updated',
        created: Math.floor(Date.now() / 1000),
        data: { object: { id: 'cus_cli', n: i } },
      });
      const res = await fetch(`${(i % 2 === 0 ? a : b).url}/ingress/acme/stripe`, {
        method: 'POST',
        headers: {
          'stripe-signature': stripe.webhooks.generateTestHeaderString({
            payload: body,
            secret: SECRET,
          }),
          'content-type': 'application/json',
        },
        body,
      });
      answers.push({
        status: res.status,
        location: res.headers.get('location'),
        body: (await res.json()) as Record<string, unknown>,
      });
    }
    const id = answers[0]!.body.dispatchId as string;
    // Both hosts hand out the one capability of the dispatch (the world's key is shared).
    const location = answers[0]!.location!;
    expect(location).toMatch(new RegExp(`^/dispatches/${id}\\?key=[A-Za-z0-9_-]{43}$`));
    expect(answers.map((x) => [x.status, x.location, x.body.pings])).toEqual(
      answers.map((_, i) => [202, location, i + 1]),
    );
    await expect
      .poll(
        async () => {
          const got = (await (await fetch(`${b.url}${location}`)).json()) as {
            run: { status: string; routineResult: unknown } | null;
          };
          return got.run?.status;
        },
        { timeout: 20_000, interval: 100 },
      )
      .toBe('triggered');
    expect(await a.stop()).toBe(0);
    expect(await b.stop()).toBe(0);

    const listed = spawnSync(
      process.execPath,
      [BIN, 'dispatches', 'list', '--root', root, '--json'],
      {
        encoding: 'utf8',
      },
    );
    expect(listed.status).toBe(0);
    expect(JSON.parse(listed.stdout)).toMatchObject([
      {
        dispatchId: id,
        state: 'dispatched',
        pings: 20,
        dedupeKey: 'stripe:evt_cli_burst_19',
        run: { status: 'triggered' },
      },
    ]);
    const triggers = JSON.parse(
      spawnSync(process.execPath, [BIN, 'triggers', '--root', root, '--json'], { encoding: 'utf8' })
        .stdout,
    ) as { status: string; attempts: number | null }[];
    // One run: one record triggered, the other 19 keys taken in by the dispatch.
    expect(triggers.map((t) => t.status).sort()).toEqual([
      ...Array.from({ length: 19 }, () => 'deferred'),
      'triggered',
    ]);
    const state = spawnSync(
      process.execPath,
      [BIN, 'state', 'triggers', '--type', 'received_event', '--root', root, '--json'],
      {
        encoding: 'utf8',
      },
    );
    const received = JSON.parse(state.stdout) as {
      fields: { input: { body: { data: { object: { n: number } } } } };
    }[];
    expect(received.map((r) => r.fields.input.body.data.object.n)).toEqual([19]);
  }, 90_000);
});
