// `twinworld serve`, `triggers` and `tick` through the built binary: the first line names the
// port, packets are answered per the contract, SIGTERM stops gracefully, and the listing and the
// tick read and write the same world.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Stripe from 'stripe';
import { afterAll, describe, expect, it } from 'vitest';

const BIN = resolve('dist/src/cli/main.js');
const SECRET = 'whsec_cliServeSecret0000000000000000001';
const stripe = new Stripe('sk_test_x');
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
function dir(): string {
  const d = mkdtempSync(join(tmpdir(), 'twinworld-cli-triggers-'));
  dirs.push(d);
  return d;
}

function tw(
  args: string[],
  env: Record<string, string> = {},
): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...process.env, ...env },
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

function packet(id: string): { body: string; headers: Record<string, string> } {
  const body = JSON.stringify({
    id,
    object: 'event',
    type: 'customer.created',
    created: Math.floor(Date.now() / 1000),
    data: { object: { id: 'cus_1' } },
  });
  return {
    body,
    headers: {
      'stripe-signature': stripe.webhooks.generateTestHeaderString({
        payload: body,
        secret: SECRET,
      }),
      'content-type': 'application/json',
    },
  };
}

describe('twinworld serve', () => {
  it('prints the URL first, answers packets, and stops gracefully on SIGTERM', async () => {
    const root = join(dir(), 'world');
    const child = spawn(
      process.execPath,
      [
        BIN,
        'serve',
        '--endpoint',
        'stripe=TW_STRIPE_SECRET',
        '--endpoint',
        'hooks:standard-webhooks=TW_STD_SECRET',
        '--port',
        '0',
        '--root',
        root,
      ],
      {
        env: {
          ...process.env,
          TW_STRIPE_SECRET: SECRET,
          TW_STD_SECRET: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    child.stdout!.setEncoding('utf8').on('data', (c: string) => (out += c));
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    await expect.poll(() => out.split('\n').length > 3, { timeout: 20_000 }).toBe(true);
    const first = out.split('\n')[0]!;
    expect(first).toMatch(/^listening on http:\/\/127\.0\.0\.1:\d+ \(root /);
    const url = /http:\/\/127\.0\.0\.1:\d+/.exec(first)![0];
    expect(out).toContain(`POST ${url}/ingress/default/stripe  (stripe, trigger stripe.webhook)`);
    expect(out).toContain(
      `POST ${url}/ingress/default/hooks  (standard-webhooks, trigger hooks.webhook)`,
    );

    const p = packet('evt_cli_1');
    const a = await fetch(`${url}/ingress/default/stripe`, {
      method: 'POST',
      headers: p.headers,
      body: p.body,
    });
    expect(a.status).toBe(200);
    expect(await a.json()).toMatchObject({
      status: 'triggered',
      routineResult: { recorded: expect.stringMatching(/^trg_/) },
    });
    const b = await fetch(`${url}/ingress/default/stripe`, {
      method: 'POST',
      headers: p.headers,
      body: p.body,
    });
    expect(await b.json()).toMatchObject({ status: 'duplicate' });
    const bad = await fetch(`${url}/ingress/default/stripe`, {
      method: 'POST',
      headers: { 'stripe-signature': 't=1,v1=00' },
      body: p.body,
    });
    expect(bad.status).toBe(401);
    expect(
      (await fetch(`${url}/ingress/other/stripe`, { method: 'POST', body: '{}' })).status,
    ).toBe(404);

    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(out).toContain('SIGTERM: stopping');
    expect(out.trimEnd().split('\n').at(-1)).toBe('stopped');

    const list = tw(['triggers', '--root', root, '--json']);
    expect(list.status).toBe(0);
    const rows = JSON.parse(list.stdout) as {
      status: string;
      provider: string;
      code: string | null;
      count: number;
    }[];
    // the duplicate is counted on the record it repeats, not listed on its own
    expect(rows.map((r) => [r.provider, r.status, r.code, r.count])).toEqual([
      ['stripe', 'refused', 'BAD_SIGNATURE', 1],
      ['stripe', 'triggered', null, 2],
    ]);
    const table = tw(['triggers', '--root', root]);
    expect(table.stdout.split('\n')[0]).toMatch(
      /^SEQ\s+RECEIVED\s+TENANT\s+SOURCE\s+TRIGGER\s+STATUS\s+CODE\s+KEY$/,
    );
    expect(table.stdout).toContain('webhook/stripe');
    // The table shows the count too: the help says later deliveries are counted on the row.
    expect(table.stdout).toMatch(/triggered\s+2 deliveries\s+stripe:evt_/);
    expect(table.stdout).not.toContain(SECRET);
  });

  it('--lease S sets the lease of its routine runs and claims (reported by the engine it started)', async () => {
    const root = join(dir(), 'world');
    const child = spawn(
      process.execPath,
      [
        BIN,
        'serve',
        '--endpoint',
        'stripe=TW_STRIPE_SECRET',
        '--lease',
        '7.5',
        '--root',
        root,
        '--json',
      ],
      { env: { ...process.env, TW_STRIPE_SECRET: SECRET }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    child.stdout!.setEncoding('utf8').on('data', (c: string) => (out += c));
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    await expect.poll(() => out.includes('\n'), { timeout: 20_000 }).toBe(true);
    expect(JSON.parse(out.split('\n')[0]!)).toMatchObject({
      event: 'listening',
      leaseSeconds: 7.5,
    });
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    const bad = tw(['serve', '--endpoint', 'stripe=X', '--lease', 'abc', '--root', root]);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/--lease/);
  });

  it('refuses a missing secret variable (naming it), conflicting or missing flags, and a bad port', () => {
    const root = join(dir(), 'world');
    const missing = tw(['serve', '--endpoint', 'stripe=TW_UNSET_VAR', '--root', root]);
    expect(missing.status).toBe(1);
    expect(missing.stderr).toMatch(/^error INVALID_CONFIG: .*TW_UNSET_VAR/);
    expect(tw(['serve', '--root', root]).status).toBe(2);
    expect(
      tw(['serve', '--endpoint', 'stripe=X', '--config', 'f.json', '--root', root]).status,
    ).toBe(2);
    expect(tw(['serve', '--endpoint', 'stripe=X', '--port', '99999', '--root', root]).status).toBe(
      2,
    );
    expect(tw(['serve', '--endpoint', 'stripe=X', '--port', 'abc', '--root', root]).status).toBe(2);
    const json = tw(['serve', '--endpoint', 'nope', '--root', root, '--json']);
    expect(json.status).toBe(1);
    expect(JSON.parse(json.stderr)).toMatchObject({ error: 'INVALID_CONFIG', path: 'endpoint[0]' });
  });
});

describe('twinworld triggers and tick', () => {
  it('triggers refuses a world that does not exist (a mistyped root), without creating it', () => {
    const root = join(dir(), 'absent');
    const r = tw(['triggers', '--root', root]);
    expect(r.status).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^error ROOT_NOT_FOUND: there is no world at /);
    expect(tw(['triggers', '--root', root, '--tenant', 'bad tenant']).status).toBe(2);
    expect(existsSync(root)).toBe(false);
  });

  it('triggers isolates a record it cannot read: named on stderr with why, never a crash', () => {
    const root = join(dir(), 'world');
    const written = tw([
      'write',
      'triggers',
      '--root',
      root,
      '-d',
      JSON.stringify({
        operation: 'trigger.receive',
        subjectType: 'trigger_record',
        subjectId: 'trg_malformed',
        fields: { state: 'triggered', envelope: 'not an envelope' },
      }),
    ]);
    expect(written.status).toBe(0);
    const listed = tw(['triggers', '--root', root, '--json']);
    expect(listed.status).toBe(0);
    expect(JSON.parse(listed.stdout)).toEqual([]);
    expect(listed.stderr).toBe(
      'skipped trigger_record trg_malformed: cannot be read (envelope.tenantId is missing: envelope is "not an envelope", not an object)\n',
    );
    expect(listed.stderr).not.toMatch(/TypeError|at .*\.js/);
  });

  it('tick fires due occurrences from a configuration, records missed ones, and never fires one twice', () => {
    const d = dir();
    const root = join(d, 'world');
    const config = join(d, 'serve.json');
    writeFileSync(
      config,
      JSON.stringify({
        tenants: [
          {
            id: 'acme',
            calendars: [
              {
                triggerId: 'hourly',
                cron: '0 * * * *',
                timezone: 'UTC',
                catchUp: { kind: 'latest' },
              },
            ],
          },
        ],
      }),
    );
    // the first tick stores the subscription with its cursor at --now
    expect(
      tw(['tick', '--config', config, '--root', root, '--now', '2026-03-01T00:00:00Z']).stdout,
    ).toBe('tenant acme at 2026-03-01T00:00:00.000Z: fired 0, missed 0\n');
    const later = tw(['tick', '--config', config, '--root', root, '--now', '2026-03-01T03:30:00Z']);
    expect(later.status).toBe(0);
    expect(later.stdout.split('\n')).toEqual([
      'tenant acme at 2026-03-01T03:30:00.000Z: fired 1, missed 2',
      '  fired   hourly #3  2026-03-01T03:00:00.000Z  (2026-03-01T03:00, catch-up)  triggered',
      '  missed  hourly #1  2026-03-01T01:00:00.000Z  (catch-up:latest)',
      '  missed  hourly #2  2026-03-01T02:00:00.000Z  (catch-up:latest)',
      '',
    ]);
    const again = tw([
      'tick',
      '--config',
      config,
      '--root',
      root,
      '--now',
      '2026-03-01T03:30:00Z',
      '--json',
    ]);
    expect(JSON.parse(again.stdout)).toEqual([
      { tenantId: 'acme', now: '2026-03-01T03:30:00.000Z', fired: [], missed: [] },
    ]);
    // without a configuration: the stored subscriptions of a tenant
    const stored = tw([
      'tick',
      '--tenant',
      'acme',
      '--root',
      root,
      '--now',
      '2026-03-01T04:00:00Z',
      '--json',
    ]);
    expect(JSON.parse(stored.stdout)[0].fired).toMatchObject([
      { triggerId: 'hourly', number: 4, status: 'triggered' },
    ]);
    const rows = JSON.parse(tw(['triggers', '--root', root, '--json']).stdout) as {
      sourceKind: string;
      provider: string;
      status: string;
    }[];
    expect(rows.map((r) => [r.sourceKind, r.provider, r.status])).toEqual([
      ['calendar', 'cron', 'triggered'],
      ['calendar', 'cron', 'triggered'],
    ]);
    // A tenant with no stored calendar is told so (and that schedules are the worker's), rather
    // than answered "fired 0" as if its calendars had nothing due.
    const none = tw([
      'tick',
      '--tenant',
      'globex',
      '--root',
      root,
      '--now',
      '2026-03-01T04:00:00Z',
    ]);
    expect(none.status).toBe(0);
    expect(none.stdout).toBe(
      'no calendar subscriptions for tenant "globex": store them with `twinworld tick --config FILE` (or serve --config); schedules (`twinworld schedules`) are run by `twinworld work`, not by tick\n',
    );
    // A day down: 23 missed, the newest 10 listed and the rest counted, not 23 lines.
    const day = tw(['tick', '--config', config, '--root', root, '--now', '2026-03-02T03:30:00Z']);
    const lines = day.stdout.split('\n');
    expect(lines[0]).toBe('tenant acme at 2026-03-02T03:30:00.000Z: fired 1, missed 22');
    expect(lines[2]).toBe('  missed  12 more before these (--json lists every one)');
    expect(lines.slice(3, -1)).toHaveLength(10);
    expect(lines[3]).toBe('  missed  hourly #17  2026-03-01T17:00:00.000Z  (catch-up:latest)');
  });

  it('tick refuses a bad --now, an unknown tenant and a bad configuration', () => {
    const d = dir();
    const config = join(d, 'serve.json');
    writeFileSync(
      config,
      JSON.stringify({
        tenants: [{ id: 'acme', calendars: [{ triggerId: 'x', cron: 'nope', timezone: 'UTC' }] }],
      }),
    );
    expect(tw(['tick', '--now', 'yesterday', '--root', join(d, 'w')]).status).toBe(2);
    const bad = tw(['tick', '--config', config, '--root', join(d, 'w')]);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(/INVALID_CONFIG.*tenants\[0\]\.calendars\[0\]\.cron/);
    writeFileSync(config, JSON.stringify({ tenants: [{ id: 'acme' }] }));
    expect(
      tw(['tick', '--config', config, '--tenant', 'globex', '--root', join(d, 'w')]).stderr,
    ).toMatch(/INVALID_ARGUMENT/);
    const absent = tw(['tick', '--root', join(d, 'absent')]);
    expect(absent.status).toBe(1);
    expect(absent.stderr).toMatch(/^error ROOT_NOT_FOUND: .*give --config FILE/);
  });
});
