// GET /_twinworld/health tells the truth about the world's store: 200 while it answers a read of
// its twins; 503 with the control plane's typed refusal — the store named, how to fix it, no driver
// code or stack — when it went away, hangs (within the bound, never waiting on it) or the world is
// closed; 200 again once it is back. PostgreSQL is the shared test server behind a loopback proxy
// that cuts or holds its connections; SQLite is a root folder that disappears.
import { rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isTwinError } from '../../src/errors.js';
import { createHost, type SurfaceHost } from '../../src/host/index.js';
import { PostgresBackend } from '../../src/storage/postgres/index.js';
import { openWorld, type World } from '../../src/world/world.js';
import { tempDir } from '../support/backends.js';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';
import { createDatabase } from '../storage/postgres-support.js';

interface Health {
  readonly ok: boolean;
  readonly store?: string;
  readonly twins?: number;
  readonly error?: { code: string; message: string; path: string };
}

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function health(host: SurfaceHost): Promise<{ status: number; body: Health; ms: number }> {
  const started = performance.now();
  const response = await host.fetch(new Request('http://127.0.0.1/_twinworld/health'));
  const body = (await response.json()) as Health;
  return { status: response.status, body, ms: performance.now() - started };
}

/** No driver code, socket error name, stack frame or password in what a probe is told. */
function expectNoDriverWords(body: Health, ...secrets: string[]): void {
  const text = JSON.stringify(body);
  expect(text).not.toMatch(/\bE[A-Z]{4,}\b|\b[0-9A-Z]{5}:|SQLSTATE|\bat \S+ \(|node:|\.js:\d+/);
  for (const secret of secrets) expect(text).not.toContain(secret);
}

function hosted(world: World, healthTimeoutMs?: number): SurfaceHost {
  const host = createHost({
    world,
    ...(healthTimeoutMs === undefined ? {} : { healthTimeoutMs }),
  });
  cleanups.push(async () => {
    await host.close();
    await world.close().catch(() => {});
  });
  return host;
}

/** A loopback port that was free a moment ago and that nothing listens on now. */
function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

const customer = {
  operation: 'customer.create',
  subjectType: 'customer',
  subjectId: 'cus_1',
  fields: {},
};

describe('GET /_twinworld/health', () => {
  it('on PostgreSQL: 200 while the server answers, 503 once it went away or hangs, 200 again when it is back', async () => {
    const db = await createDatabase('health');
    const proxy: TcpProxy = await startTcpProxy(Number(new URL(db.url).port));
    cleanups.push(() => proxy.close());
    const url = new URL(db.url);
    url.port = String(proxy.port);
    const password = decodeURIComponent(url.password);
    const reported: unknown[] = [];
    const world = openWorld({
      root: 'postgres://health',
      backend: new PostgresBackend(url.toString(), 'w', { connectTimeoutMs: 1_000 }),
      onError: (error) => reported.push(error),
    });
    const host = hosted(world, 300);
    await world.twin('shop').applyWrite(customer);
    expect(await health(host)).toMatchObject({
      status: 200,
      body: { ok: true, store: 'postgres', twins: 1 },
    });

    // Stopped: the pooled connections are cut and the port refuses new ones.
    await proxy.cut();
    const gone = await health(host);
    expect(gone.status).toBe(503);
    expect(gone.body.ok).toBe(false);
    expect(gone.body.error).toMatchObject({ code: 'STORE_UNREACHABLE', path: 'store' });
    expect(gone.body.error!.message).toContain(`postgres store at 127.0.0.1:${proxy.port}`);
    expect(gone.body.error!.message).toContain('check that the database server runs');
    expectNoDriverWords(gone.body, password);
    // The driver's own words went to the host's log, typed.
    expect(reported.some((e) => isTwinError(e, 'STORE_UNREACHABLE'))).toBe(true);

    await proxy.reopen();
    expect(await health(host)).toMatchObject({ status: 200, body: { ok: true } });

    // Hanging: connections stay open and nothing is answered. Each probe ends within the bound;
    // the second is not stuck behind the read the first left hanging.
    proxy.hold();
    for (let probe = 0; probe < 2; probe++) {
      const hung = await health(host);
      expect(hung.status).toBe(503);
      expect(hung.body.error).toMatchObject({ code: 'STORE_UNREACHABLE', path: 'store' });
      expect(hung.body.error!.message).toContain(
        'did not answer a read of its twins within 300 ms',
      );
      expect(hung.ms).toBeLessThan(2_000);
      expectNoDriverWords(hung.body, password);
    }
    proxy.release();
    expect(await health(host)).toMatchObject({ status: 200, body: { ok: true } });
  });

  it('on PostgreSQL at a port nothing listens on: 503 STORE_UNREACHABLE from the first probe', async () => {
    const port = await closedPort();
    const world = openWorld({
      root: 'postgres://nowhere',
      backend: new PostgresBackend(`postgres://twinworld:s3cret-pw@127.0.0.1:${port}/nowhere`, 'w'),
      onError: () => {},
    });
    const refused = await health(hosted(world));
    expect(refused.status).toBe(503);
    expect(refused.body.error).toMatchObject({ code: 'STORE_UNREACHABLE', path: 'store' });
    expect(refused.body.error!.message).toContain(`at 127.0.0.1:${port}`);
    expectNoDriverWords(refused.body, 's3cret-pw');
  });

  it('on SQLite: 200 with the twins; 503 once the root is gone, and once the world is closed', async () => {
    const dir = tempDir('twinworld-health-');
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const root = join(dir, 'root');
    const world = openWorld({ root, onError: () => {} });
    const host = hosted(world);
    await world.twin('shop').applyWrite(customer);
    expect(await health(host)).toMatchObject({
      status: 200,
      body: { ok: true, store: 'sqlite', twins: 1 },
    });
    rmSync(root, { recursive: true, force: true });
    const gone = await health(host);
    expect(gone.status).toBe(503);
    expect(gone.body.error).toMatchObject({ code: 'STORE_FAILED', path: 'store' });
    expect(gone.body.error!.message).toContain(`sqlite store at ${root}`);
    expectNoDriverWords(gone.body);
    await world.close();
    const closed = await health(host);
    expect(closed.status).toBe(503);
    expect(closed.body.error).toMatchObject({ code: 'WORLD_CLOSED', path: 'store' });
  });

  it('refuses a health bound it cannot keep, naming the option', () => {
    const world = openWorld({ root: ':memory:' });
    cleanups.push(() => world.close());
    for (const bad of [0, -1, 1.5, Number.NaN, '2000'])
      expect(() => createHost({ world, healthTimeoutMs: bad as number })).toThrow(
        expect.objectContaining({ code: 'INVALID_ARGUMENT', path: 'healthTimeoutMs' }),
      );
  });
});
