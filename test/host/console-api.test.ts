// The console's fetch handler in this process, on a real SQLite root: the token on every request
// (and only from a header for actions), each action refused exactly as its CLI command refuses it
// with nothing appended, the live stream of heads, the virtual clock, and the mount under a base path.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtInPacks } from '../../packs/built-in.js';
import { Dispatcher } from '../../src/events/dispatcher.js';
import { registerPack } from '../../src/events/pack-registry.js';
import { createConsoleHandler, type ConsoleHandler } from '../../src/host/console/handler.js';
import { readHeads } from '../../src/host/console/heads.js';
import { mountConsole } from '../../src/host/console/mount.js';
import { serveFetch } from '../../src/host/node-http.js';
import { RealClock, VirtualClock, type Clock } from '../../src/world/clock.js';
import { openWorld, type World } from '../../src/world/world.js';
import { tempDir } from '../support/backends.js';
import { cli } from '../cli/in-process.js';

const TOKEN = 'secret-token-for-tests';
let dir: string;
let root: string;

function open(
  clock: Clock,
  basePath = '',
): { world: World; console: ConsoleHandler; dispatcher: Dispatcher } {
  const world = openWorld({ root, clock });
  for (const pack of builtInPacks) registerPack(world, pack);
  const dispatcher = new Dispatcher(world, { autoDispatch: false });
  return {
    world,
    dispatcher,
    console: createConsoleHandler({ world, dispatcher, token: TOKEN, basePath, pollMs: 20 }),
  };
}

const get = (c: ConsoleHandler, path: string, headers: Record<string, string> = {}) =>
  c.fetch(new Request(`http://127.0.0.1:1${path}`, { headers }));
const post = (
  c: ConsoleHandler,
  action: string,
  body: unknown,
  headers: Record<string, string> = { 'x-twinworld-token': TOKEN },
) =>
  c.fetch(
    new Request(`http://127.0.0.1:1/api/actions/${action}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    }),
  );

beforeAll(async () => {
  dir = tempDir('twinworld-console-api-');
  root = join(dir, 'world');
  expect(
    (await cli(['endpoints', 'add', 'stripe', '--url', 'http://127.0.0.1:9/x', '--root', root]))
      .status,
  ).toBe(0);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the console token', () => {
  it('is required on the page, the API and the stream; actions take it from a header only', async () => {
    const { world, console: c, dispatcher } = open(new RealClock());
    try {
      for (const path of ['/', '/api/overview', '/events', '/api/deliveries'])
        for (const q of ['', '?token=wrong', `?token=${TOKEN}x`]) {
          const r = await get(c, path + q);
          expect(r.status, path + q).toBe(401);
          expect(((await r.json()) as { error: string }).error).toBe('CONSOLE_TOKEN');
        }
      const page = await get(c, `/?token=${TOKEN}`);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
      const html = await page.text();
      expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);
      expect((await get(c, '/api/overview', { 'x-twinworld-token': TOKEN })).status).toBe(200);
      // A page on another origin could put the token in a URL, never in a header: refused.
      const fromQuery = await c.fetch(
        new Request(`http://127.0.0.1:1/api/actions/redeliver?token=${TOKEN}`, {
          method: 'POST',
          body: '{}',
        }),
      );
      expect(fromQuery.status).toBe(401);
      expect((await post(c, 'redeliver', {}, { 'x-twinworld-token': 'nope' })).status).toBe(401);
    } finally {
      await c.close();
      await dispatcher.close();
      await world.close();
    }
  });
});

describe('actions are refused as the CLI refuses them, and append nothing', () => {
  it('redeliver, endpoints, dispatches, schedules: same code, same message', async () => {
    const { world, console: c, dispatcher } = open(new RealClock());
    const before = await readHeads(world);
    const cases: [string, Record<string, unknown>, string[]][] = [
      ['redeliver', { delivery: 'dlv_nope' }, ['redeliver', 'dlv_nope']],
      ['endpoint.disable', { endpoint: 'we_nope' }, ['endpoints', 'disable', 'we_nope']],
      [
        'endpoint.enable',
        { endpoint: 'we_nope', pack: 'stripe' },
        ['endpoints', 'enable', 'we_nope', '--pack', 'stripe'],
      ],
      ['dispatch.cancel', { dispatch: 'dsp_nope' }, ['dispatches', 'cancel', 'dsp_nope']],
      ['schedule.pause', { schedule: 'nightly' }, ['schedules', 'pause', 'nightly']],
      ['schedule.resume', { schedule: 'nightly' }, ['schedules', 'resume', 'nightly']],
    ];
    try {
      for (const [action, body, args] of cases) {
        const r = await post(c, action, body);
        const answer = (await r.json()) as { error: string; message: string; path?: string };
        // The path names the key of the body that was wrong, whatever the shared function calls it.
        expect(answer.path, action).toBe(Object.keys(body)[0]);
        const viaCli = await cli([...args, '--json', '--root', root]);
        expect(viaCli.status, args.join(' ')).toBe(1);
        const expected = JSON.parse(viaCli.stderr) as { error: string; message: string };
        expect([r.status >= 400, answer.error, answer.message], action).toEqual([
          true,
          expected.error,
          expected.message,
        ]);
      }
      const bad: [string, unknown, number, string][] = [
        ['redeliver', {}, 400, 'INVALID_ARGUMENT'],
        ['redeliver', { delivery: 'dlv_x', to: 'ftp://127.0.0.1/' }, 400, 'INVALID_ARGUMENT'],
        ['clock.advance', { ms: 1000 }, 409, 'CLOCK_NOT_VIRTUAL'],
        ['clock.advance', { ms: -1 }, 400, 'INVALID_ARGUMENT'],
        ['launch.missiles', {}, 404, 'UNKNOWN_ACTION'],
        ['redeliver', 'not json', 400, 'INVALID_ARGUMENT'],
        ['redeliver', [], 400, 'INVALID_ARGUMENT'],
      ];
      for (const [action, body, status, code] of bad) {
        const r = await post(c, action, body);
        expect([r.status, ((await r.json()) as { error: string }).error], action).toEqual([
          status,
          code,
        ]);
      }
      // Nothing appended: every head as it was (the dispatch and schedule lookups open the
      // empty `triggers` twin, as the CLI commands do).
      const after = await readHeads(world);
      expect(after).toEqual({ ...before, triggers: 0 });
    } finally {
      await c.close();
      await dispatcher.close();
      await world.close();
    }
  });

  it('disable and enable an endpoint: the same atomic action as `endpoints disable|enable`', async () => {
    const { world, console: c, dispatcher } = open(new RealClock());
    try {
      const [endpoint] = (await cli(['endpoints', 'list', '--json', '--root', root])).json<
        { id: string }[]
      >();
      const off = await post(c, 'endpoint.disable', { endpoint: endpoint!.id });
      expect(off.status).toBe(200);
      expect(((await off.json()) as { answer: { enabled: boolean } }).answer.enabled).toBe(false);
      expect(
        (await cli(['endpoints', 'list', '--json', '--root', root])).json<
          { enabled: boolean }[]
        >()[0]!.enabled,
      ).toBe(false);
      const on = await post(c, 'endpoint.enable', { endpoint: endpoint!.id, pack: 'stripe' });
      expect(((await on.json()) as { answer: { enabled: boolean } }).answer.enabled).toBe(true);
      const last = (await cli(['log', 'stripe', '--json', '--root', root]))
        .json<{ operation: string; actor: string }[]>()
        .at(-1)!;
      expect(last.operation).toBe('webhook_endpoint.update');
    } finally {
      await c.close();
      await dispatcher.close();
      await world.close();
    }
  });
});

/** The console's event stream, read one chunk at a time (an SSE event each). */
async function eventStream(c: ConsoleHandler, aborted: AbortController) {
  const r = await c.fetch(
    new Request(`http://127.0.0.1:1/events?token=${TOKEN}`, { signal: aborted.signal }),
  );
  const reader = r.body!.getReader();
  const next = async () => new TextDecoder().decode((await reader.read()).value);
  return { r, next };
}

describe('live and clock', () => {
  it('the event stream sends the heads now and again when any write moves one', async () => {
    const { world, console: c, dispatcher } = open(new RealClock());
    const aborted = new AbortController();
    try {
      const { r, next } = await eventStream(c, aborted);
      expect(r.headers.get('content-type')).toContain('text/event-stream');
      const first = await next();
      const head = (await readHeads(world)).stripe!;
      expect(first).toBe(`event: heads\ndata: ${JSON.stringify(await readHeads(world))}\n\n`);
      // Another process appends: the CLI, through its own world on the same root.
      expect((await cli(['trigger', 'stripe', 'customer.created', '--root', root])).status).toBe(0);
      let seen = '';
      while (!seen.includes(`"stripe":`) || JSON.parse(seen.split('data: ')[1]!).stripe <= head)
        seen = await next();
      expect(JSON.parse(seen.split('data: ')[1]!).stripe).toBeGreaterThan(head);
      aborted.abort();
    } finally {
      await c.close();
      await dispatcher.close();
      await world.close();
    }
  });

  it('a client that does not read is sent the newest heads when it reads again, not a backlog', async () => {
    const { world, console: c, dispatcher } = open(new RealClock());
    const aborted = new AbortController();
    try {
      const { next } = await eventStream(c, aborted);
      await next();
      // three writes, each seen by the 20 ms heads poll (on a quiet machine), while nobody reads
      for (let i = 0; i < 3; i++) {
        await world.twin('scratch').applyWrite({
          operation: 'note.set',
          subjectType: 'note',
          subjectId: 'n',
          fields: { i },
        });
        await new Promise((resolve) => setTimeout(resolve, 80));
      }
      const now = `event: heads\ndata: ${JSON.stringify(await readHeads(world))}\n\n`;
      // at most the one snapshot queued when the reading stopped, then the newest: no backlog
      const read: string[] = [];
      while (read.at(-1) !== now) read.push(await next());
      expect(read.length).toBeLessThanOrEqual(2);
      aborted.abort();
    } finally {
      await c.close();
      await dispatcher.close();
      await world.close();
    }
  });

  it('advances a virtual clock; mounted under a base path it redirects to its trailing slash', async () => {
    const {
      world,
      console: c,
      dispatcher,
    } = open(new VirtualClock('2026-03-01T09:00:00Z'), '/_twinworld/console');
    try {
      const moved = await c.fetch(
        new Request('http://127.0.0.1:1/_twinworld/console/api/actions/clock.advance', {
          method: 'POST',
          headers: { 'x-twinworld-token': TOKEN },
          body: JSON.stringify({ ms: 90_000 }),
        }),
      );
      expect(await moved.json()).toEqual({ ok: true, answer: { now: '2026-03-01T09:01:30.000Z' } });
      // Past the last time a date can hold, the clock would break every read: refused, unmoved.
      const tooFar = await c.fetch(
        new Request('http://127.0.0.1:1/_twinworld/console/api/actions/clock.advance', {
          method: 'POST',
          headers: { 'x-twinworld-token': TOKEN },
          body: JSON.stringify({ ms: Number.MAX_SAFE_INTEGER }),
        }),
      );
      expect(tooFar.status).toBe(400);
      const refused = (await tooFar.json()) as { error: string; path: string; message: string };
      expect(refused).toMatchObject({ error: 'INVALID_ARGUMENT', path: 'ms' });
      expect(refused.message).toContain('the last time a date can hold');
      const o = await get(c, `/_twinworld/console/api/overview?token=${TOKEN}`);
      expect(((await o.json()) as { clock: unknown }).clock).toEqual({
        now: '2026-03-01T09:01:30.000Z',
        virtual: true,
      });
      const bare = await get(c, `/_twinworld/console?token=${TOKEN}`);
      expect([bare.status, bare.headers.get('location')]).toEqual([
        308,
        `/_twinworld/console/?token=${TOKEN}`,
      ]);
      expect((await get(c, `/elsewhere?token=${TOKEN}`)).status).toBe(404);
    } finally {
      await c.close();
      await dispatcher.close();
      await world.close();
    }
  });
});

describe('mounted on a host', () => {
  it('answers under /_twinworld/console/ over real HTTP on 127.0.0.1, token and all', async () => {
    const world = openWorld({ root, clock: new RealClock() });
    for (const pack of builtInPacks) registerPack(world, pack);
    const dispatcher = new Dispatcher(world, { autoDispatch: false });
    // A host as the vendor-surface host is: control handlers by name under /_twinworld/.
    const handlers = new Map<string, (r: Request) => Promise<Response> | Response>();
    const host = {
      mount: (name: string, h: (r: Request) => Promise<Response> | Response) =>
        void handlers.set(name, h),
    };
    const mounted = mountConsole(host, { world, dispatcher, token: TOKEN });
    const http = await serveFetch(async (request) => {
      const name = /^\/_twinworld\/([a-z-]+)/.exec(new URL(request.url).pathname)?.[1];
      const h = name === undefined ? undefined : handlers.get(name);
      return h === undefined ? new Response('no', { status: 404 }) : h(request);
    });
    try {
      expect([...handlers.keys()]).toEqual(['console']);
      const page = await fetch(`${http.origin}/_twinworld/console/?token=${TOKEN}`);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('<title>twinworld console</title>');
      expect((await fetch(`${http.origin}/_twinworld/console/api/overview`)).status).toBe(401);
      const o = await fetch(`${http.origin}/_twinworld/console/api/overview`, {
        headers: { 'x-twinworld-token': TOKEN },
      });
      expect(
        ((await o.json()) as { twins: { name: string }[] }).twins.map((t) => t.name),
      ).toContain('stripe');
      // a body over 1 MiB is refused before anyone reads it, token or not
      const huge = await fetch(`${http.origin}/_twinworld/console/api/actions/clock.advance`, {
        method: 'POST',
        body: 'x'.repeat(1024 * 1024 + 1),
      });
      expect(huge.status).toBe(413);
      expect(await huge.json()).toMatchObject({ error: 'PAYLOAD_TOO_LARGE' });
      // an action name that is not percent-encoding is a 400, not a fault
      const garbled = await fetch(`${http.origin}/_twinworld/console/api/actions/%E0`, {
        method: 'POST',
        headers: { 'x-twinworld-token': TOKEN, 'content-type': 'application/json' },
        body: '{}',
      });
      expect(garbled.status).toBe(400);
      expect(await garbled.json()).toMatchObject({ error: 'UNKNOWN_ACTION' });
    } finally {
      await mounted.close();
      await http.close();
      await dispatcher.close();
      await world.close();
    }
  });
});

describe('the read API refuses what it cannot answer, naming it', () => {
  it('a missing parameter is a 400 naming it; an unknown state a 400 naming the states; type filters resources', async () => {
    expect(
      (await cli(['trigger', 'stripe', 'customer.created', '--count', '2', '--root', root])).status,
    ).toBe(0);
    const { world, console: c, dispatcher } = open(new RealClock());
    const read = async (path: string) => {
      const r = await get(c, path, { 'x-twinworld-token': TOKEN });
      return { status: r.status, body: (await r.json()) as Record<string, unknown> };
    };
    try {
      for (const [path, name] of [
        ['/api/attempts', 'delivery'],
        ['/api/attempts?delivery=', 'delivery'],
        ['/api/hash', 'twin'],
        ['/api/resources', 'twin'],
        ['/api/history?twin=stripe&type=customer', 'id'],
      ] as const) {
        const r = await read(path);
        expect(r.status, path).toBe(400);
        expect(r.body, path).toMatchObject({ error: 'INVALID_ARGUMENT', path: name });
        expect(String(r.body.message), path).toMatch(new RegExp(`needs the ${name} parameter`));
      }
      const bogus = await read('/api/deliveries?state=bogus');
      expect(bogus.status).toBe(400);
      expect(bogus.body).toMatchObject({ error: 'INVALID_ARGUMENT', path: 'state' });
      expect(String(bogus.body.message)).toContain('queued, sending');
      expect((await read('/api/deliveries?state=queued')).status).toBe(200);

      const all = await read('/api/resources?twin=stripe');
      expect(Object.keys(all.body).length).toBeGreaterThan(1);
      const customers = await read('/api/resources?twin=stripe&type=customer');
      expect(customers.status).toBe(200);
      expect(Object.keys(customers.body)).toEqual(['customer']);
      expect(customers.body.customer).toEqual(all.body.customer);
      expect((customers.body.customer as unknown[]).length).toBeGreaterThanOrEqual(2);
      expect((await read('/api/resources?twin=stripe&type=nothing')).body).toEqual({});
      // A twin the store does not hold is named, as `twinworld state` names it, not read as empty.
      for (const path of [
        '/api/hash?twin=strpe',
        '/api/resources?twin=strpe',
        '/api/history?twin=strpe&type=customer&id=cus_1',
      ]) {
        const r = await read(path);
        expect(r.status, path).toBe(404);
        expect(r.body, path).toMatchObject({ error: 'UNKNOWN_TWIN', path: 'twin' });
        expect(String(r.body.message), path).toContain('no twin "strpe" on this store');
      }
      // An action is a POST: a GET of one says so, rather than "no route".
      const got = await read('/api/actions/redeliver');
      expect(got.status).toBe(405);
      expect(got.body).toMatchObject({ error: 'METHOD_NOT_ALLOWED' });
      expect(String(got.body.message)).toContain('an action takes POST');
    } finally {
      await c.close();
      await dispatcher.close();
      await world.close();
    }
  });
});
