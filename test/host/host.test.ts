// The host with a small surface of its own (the acme test pack): routes matched static-first,
// writes as one atomic action each, GETs that never append, refusals in the surface's envelope,
// idempotency replays and mismatches, the clock control, and answers before deliveries.
import { afterEach, describe, expect, it } from 'vitest';
import { commit } from '../../src/world/decision.js';
import { openWorld, type World } from '../../src/world/world.js';
import { VirtualClock } from '../../src/world/clock.js';
import { TwinError, isTwinError } from '../../src/errors.js';
import {
  answer,
  createHost,
  defineSurface,
  listen,
  type Listening,
  type SurfaceHost,
} from '../../src/host/index.js';
import { acmePack } from '../support/acme-pack.js';

interface Acct {
  readonly account: string;
}

function acmeSurface(world: World, host: () => SurfaceHost) {
  const pack = acmePack();
  return defineSurface<Acct>({
    name: 'acme',
    prefix: '/acme/',
    async decode(request, url) {
      if (request.method === 'GET') return Object.fromEntries(url.searchParams);
      const text = await request.text();
      return text === '' ? {} : (JSON.parse(text) as Record<string, string>);
    },
    auth(request) {
      const key = request.headers.get('authorization')?.replace(/^Bearer /, '');
      if (key === undefined || !key.startsWith('key_'))
        throw new TwinError('INVALID_ARGUMENT', 'no key', { path: 'authorization' });
      return { account: key };
    },
    renderError: (error) => ({
      status: isTwinError(error) && error.path === 'authorization' ? 401 : 400,
      body: { oops: isTwinError(error) ? error.message : 'internal' },
    }),
    unknownRoute: (method, path) => ({ status: 404, body: { oops: `no ${method} ${path}` } }),
    idempotency: {
      key: (r) => r.headers.get('idempotency-key') ?? undefined,
      scope: (p) => p.account,
      ttlMs: 24 * 3600_000,
      saves: (status) => status < 500,
      inProgress: () => ({ status: 409, body: { oops: 'busy' } }),
      mismatch: (key) => ({ status: 400, body: { oops: `key ${key} reused` } }),
      replayHeaders: { 'idempotent-replayed': 'true' },
    },
    routes: [
      {
        method: 'POST',
        path: '/acme/customers',
        sdk: 'customers.create',
        kind: 'write',
        events: ['customer.created'],
        async handle({ input }) {
          const twin = host().packTwin(pack);
          const id = world.ids.vendorId('cus', 8);
          if (input.name === 'refuse') throw new TwinError('INVALID_ARGUMENT', 'refused name');
          await twin.applyAtomic(() =>
            commit({
              operation: 'customer.create',
              subjectType: 'customer',
              subjectId: id,
              fields: { id, name: String(input.name) },
            }),
          );
          return answer(201, { id, name: String(input.name) });
        },
      },
      {
        method: 'GET',
        path: '/acme/customers/search',
        sdk: 'customers.search',
        kind: 'read',
        handle: () => ({ searched: true }),
      },
      {
        method: 'GET',
        path: '/acme/customers/:id',
        sdk: 'customers.retrieve',
        kind: 'read',
        async handle({ params }) {
          const c = await world.twin('acme').get('customer', params.id!);
          if (c === undefined) return answer(404, { oops: 'missing' });
          return c.fields;
        },
      },
    ],
  });
}

let open: { world: World; host: SurfaceHost; listening?: Listening }[] = [];
afterEach(async () => {
  for (const o of open) {
    await o.listening?.close();
    await o.host.close();
    await o.world.close();
  }
  open = [];
});

function start() {
  const world = openWorld({
    root: ':memory:',
    clock: new VirtualClock('2026-04-01T00:00:00Z'),
    seed: 'host',
  });
  let host: SurfaceHost | undefined;
  host = createHost({ world, surfaces: [acmeSurface(world, () => host!)] });
  open.push({ world, host });
  const call = (
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ) =>
    host!.fetch(
      new Request(`http://127.0.0.1${path}`, {
        method,
        headers: { authorization: 'Bearer key_1', ...headers },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }),
    );
  return { world, host, call };
}

describe('host', () => {
  it('serves writes and reads; static segments win; GETs append nothing', async () => {
    const { world, call } = start();
    const created = await call('POST', '/acme/customers', { name: 'Ada' });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    expect(await (await call('GET', '/acme/customers/search')).json()).toEqual({ searched: true });
    const head = await world.twin('acme').head();
    for (let i = 0; i < 50; i++)
      expect((await call('GET', `/acme/customers/${id}`)).status).toBe(200);
    expect(await world.twin('acme').head()).toBe(head);
  });

  it('renders refusals in the surface envelope: auth, unknown route, handler refusal (nothing appended)', async () => {
    const { world, host, call } = start();
    const noAuth = await host.fetch(
      new Request('http://127.0.0.1/acme/customers', { method: 'POST' }),
    );
    expect(noAuth.status).toBe(401);
    const unknown = await call('GET', '/acme/nothing/here');
    expect([unknown.status, await unknown.json()]).toEqual([
      404,
      { oops: 'no GET /acme/nothing/here' },
    ]);
    const refused = await call('POST', '/acme/customers', { name: 'refuse' });
    expect(refused.status).toBe(400);
    expect(await world.twin('acme').head()).toBe(0);
    const other = await host.fetch(new Request('http://127.0.0.1/elsewhere'));
    expect(other.status).toBe(404);
    expect(((await other.json()) as { error: { code: string } }).error.code).toBe(
      'UNKNOWN_SURFACE',
    );
  });

  it('idempotency: same key and body replays the saved answer; other body is refused; refusals are not saved', async () => {
    const { world, host, call } = start();
    const first = await call(
      'POST',
      '/acme/customers',
      { name: 'Ada' },
      { 'idempotency-key': 'k1' },
    );
    const again = await call(
      'POST',
      '/acme/customers',
      { name: 'Ada' },
      { 'idempotency-key': 'k1' },
    );
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await again.text()).toBe(await first.text());
    expect(await world.twin('acme').head()).toBe(1);
    const other = await call(
      'POST',
      '/acme/customers',
      { name: 'Bob' },
      { 'idempotency-key': 'k1' },
    );
    expect([other.status, await other.json()]).toEqual([400, { oops: 'key k1 reused' }]);
    // another account's key of the same name is its own
    const elsewhere = await host.fetch(
      new Request('http://127.0.0.1/acme/customers', {
        method: 'POST',
        headers: { authorization: 'Bearer key_2', 'idempotency-key': 'k1' },
        body: JSON.stringify({ name: 'Bob' }),
      }),
    );
    expect(elsewhere.status).toBe(201);
    expect(host.stats.replayed).toBe(1);
  });

  it('the clock control reads and moves a virtual world clock, refusing bad input', async () => {
    const { world, host } = start();
    const get = await host.fetch(new Request('http://127.0.0.1/_twinworld/clock'));
    expect(await get.json()).toMatchObject({ now: '2026-04-01T00:00:00.000Z', virtual: true });
    const moved = await host.fetch(
      new Request('http://127.0.0.1/_twinworld/clock', {
        method: 'POST',
        body: JSON.stringify({ advance_ms: 60_000 }),
      }),
    );
    expect(await moved.json()).toMatchObject({ now: '2026-04-01T00:01:00.000Z' });
    expect(world.clock.now()).toBe(Date.parse('2026-04-01T00:01:00Z'));
    const back = await host.fetch(
      new Request('http://127.0.0.1/_twinworld/clock', {
        method: 'POST',
        body: JSON.stringify({ to: '2026-01-01T00:00:00Z' }),
      }),
    );
    expect(back.status).toBe(400);
    expect(((await back.json()) as { error: { path: string } }).error.path).toBe('to');
    const unknown = await host.fetch(new Request('http://127.0.0.1/_twinworld/nope'));
    expect(unknown.status).toBe(404);
  });

  it('listens on 127.0.0.1 and answers over real HTTP, with its origin set', async () => {
    const s = start();
    const listening = await listen(s.host);
    open[open.length - 1]!.listening = listening;
    expect(listening.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(s.host.origin).toBe(listening.url);
    const res = await fetch(`${listening.url}/_twinworld/health`);
    expect(await res.json()).toEqual({ ok: true, store: 'memory', twins: 0 });
  });

  it('refuses a bad surface table at declaration', () => {
    const world = openWorld({ root: ':memory:' });
    open.push({ world, host: createHost({ world }) });
    const bad = {
      ...acmeSurface(world, () => open[0]!.host),
      routes: [{ method: 'GET', path: '/x', sdk: 'x', kind: 'write', handle: () => null }],
    };
    expect(() => createHost({ world, surfaces: [bad as never] })).toThrow(/GETs never append/);
  });
});
