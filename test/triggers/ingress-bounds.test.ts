// The ingress host's bounds over real HTTP on 127.0.0.1: 20,000 idle sockets against a real
// `twinworld serve` process with a connection cap (its descriptors stay bounded and a signed
// request is still answered), deadlines in seconds for headers, bodies and keep-alive, the cap's
// eviction and refusal, a 413 the client actually receives, aborted uploads that log nothing, and
// bodies past the input limits refused as 400.
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  startIngressHost,
  type IngressHost,
  type IngressHostOptions,
} from '../../src/host/ingress/ingress-host.js';
import {
  checkLimits,
  ConnectionGuard,
  DEFAULT_LIMITS,
} from '../../src/host/ingress/connections.js';
import { ingressHarness, SECRETS, stripePacket, T, type IngressHarness } from './packets.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

interface Reply {
  status: number;
  body: Record<string, unknown>;
}

function post(
  url: string,
  headers: Record<string, string>,
  body: string | Buffer,
  timeoutMs = 15_000,
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        agent: false,
        timeout: timeoutMs,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({
            status: res.statusCode ?? 0,
            body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>),
          });
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error('no answer in time')));
    req.on('error', reject);
    req.end(body);
  });
}

const event = (id: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    id,
    object: 'event',
    type: 'customer.created',
    created: T,
    data: { object: { id: 'cus_1' } },
    ...extra,
  });

async function hosted(
  limits: IngressHostOptions['limits'] = {},
  options: { maxBodyBytes?: number } = {},
): Promise<IngressHarness & { host: IngressHost; errors: unknown[] }> {
  const h = await ingressHarness([], options);
  const errors: unknown[] = [];
  const host = await startIngressHost({
    world: h.world,
    engine: h.engine,
    ingress: h.ingress,
    limits,
    onError: (e) => errors.push(e),
  });
  return { ...h, host, errors };
}

/** Resolves with how long the socket stayed open (ms), once the server closes it. */
function closedAfter(socket: net.Socket, started: number): Promise<number> {
  return new Promise((resolve) => socket.once('close', () => resolve(Date.now() - started)));
}

/** A raw connection, reading (so that it sees the server hang up) and sending nothing yet. */
function connect(port: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const s = net.connect({ port, host: '127.0.0.1' }, () => resolve(s));
    s.on('error', reject);
    s.resume();
  });
}

describe('deadlines in seconds', () => {
  it('closes a connection that sends nothing, or only part of its headers, after headersTimeoutSec', async () => {
    const h = await hosted({ headersTimeoutSec: 1, keepAliveTimeoutSec: 1 });
    const t0 = Date.now();
    const silent = await connect(h.host.port);
    const partial = await connect(h.host.port);
    partial.write('POST /ingress/acme/stripe HTTP/1.1\r\nHost: x\r\nX-Slow: ');
    const [a, b] = await Promise.all([closedAfter(silent, t0), closedAfter(partial, t0)]);
    for (const ms of [a, b]) {
      expect(ms).toBeGreaterThanOrEqual(900);
      expect(ms).toBeLessThan(4_000);
    }
    // Node's own headers timeout (set to the same value) or the guard's sweep, whichever comes
    // round first, closed them (a loaded machine let Node's win both); either way the slots are free.
    expect(h.host.connections().open).toBe(0);
    await h.host.close();
  });

  it("the guard alone closes a connection that sends nothing, when Node's own timeouts are not there", async () => {
    const guard = new ConnectionGuard(checkLimits({ ...DEFAULT_LIMITS, headersTimeoutSec: 1 }));
    const server = net.createServer((socket) => guard.accept(socket));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    guard.start();
    try {
      const t0 = Date.now();
      const silent = await connect((server.address() as net.AddressInfo).port);
      const ms = await closedAfter(silent, t0);
      expect(ms).toBeGreaterThanOrEqual(900);
      expect(guard.stats()).toMatchObject({ open: 0, timedOut: 1 });
    } finally {
      guard.stop();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('closes a request whose body trickles past bodyTimeoutSec, and an idle kept-alive connection', async () => {
    const h = await hosted({ bodyTimeoutSec: 1, keepAliveTimeoutSec: 1 });
    const t0 = Date.now();
    const slow = await connect(h.host.port);
    slow.write(
      `POST /ingress/acme/stripe HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n{"id":`,
    );
    let answered = '';
    slow.on('data', (d: Buffer) => (answered += d.toString()));
    const ms = await closedAfter(slow, t0);
    expect(ms).toBeLessThan(4_000);
    expect(answered === '' || answered.startsWith('HTTP/1.1 408')).toBe(true);
    // keep-alive: answered, then closed once idle for a second
    const kept = await connect(h.host.port);
    const b = event('evt_kept');
    const headers = Object.entries(stripePacket(b))
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join('');
    kept.write(
      `POST /ingress/acme/stripe HTTP/1.1\r\nHost: x\r\n${headers}Content-Length: ${Buffer.byteLength(b)}\r\n\r\n${b}`,
    );
    let reply = '';
    kept.on('data', (d: Buffer) => (reply += d.toString()));
    const t1 = Date.now();
    const keptMs = await closedAfter(kept, t1);
    expect(reply).toMatch(/^HTTP\/1\.1 200/);
    expect(keptMs).toBeLessThan(4_000);
    expect(h.errors).toEqual([]);
    await h.host.close();
  });
});

describe('the connection cap', () => {
  it('at the cap, a new connection evicts the oldest idle one: a signed request is answered', async () => {
    const h = await hosted({ maxConnections: 4, headersTimeoutSec: 60 });
    const idle = await Promise.all([0, 1, 2, 3].map(() => connect(h.host.port)));
    const closed = idle.map((s) => new Promise<void>((r) => s.once('close', () => r())));
    await new Promise((r) => setTimeout(r, 100));
    const b = event('evt_cap');
    expect(await post(`${h.host.url}/ingress/acme/stripe`, stripePacket(b), b)).toMatchObject({
      status: 200,
      body: { status: 'triggered' },
    });
    await closed[0];
    expect(h.host.connections()).toMatchObject({ evicted: 1, refused: 0 });
    expect(h.host.connections().open).toBeLessThanOrEqual(4);
    idle.forEach((s) => s.destroy());
    await h.host.close();
  });

  it('when every connection is busy receiving a request, a newcomer is refused, and served once one frees up', async () => {
    const h = await hosted({ maxConnections: 2, headersTimeoutSec: 60, bodyTimeoutSec: 60 });
    const busy = await Promise.all([0, 1].map(() => connect(h.host.port)));
    for (const s of busy)
      s.write(`POST /ingress/acme/stripe HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{`);
    await new Promise((r) => setTimeout(r, 200));
    const b = event('evt_busy');
    await expect(
      post(`${h.host.url}/ingress/acme/stripe`, stripePacket(b), b, 3_000),
    ).rejects.toThrow();
    expect(h.host.connections().refused).toBeGreaterThanOrEqual(1);
    busy[0]!.destroy();
    await new Promise((r) => setTimeout(r, 100));
    expect((await post(`${h.host.url}/ingress/acme/stripe`, stripePacket(b), b)).status).toBe(200);
    busy[1]!.destroy();
    await h.host.close();
  });
});

describe('oversized and aborted uploads', () => {
  it('an upload over the limit gets its 413 and JSON body, every time, with or without Content-Length', async () => {
    const h = await hosted({}, { maxBodyBytes: 64 * 1024 });
    const big = event('evt_big', { pad: 'x'.repeat(2 * 1024 * 1024) });
    for (let i = 0; i < 12; i++) {
      const reply = await post(`${h.host.url}/ingress/acme/stripe`, stripePacket(big), big);
      expect(reply).toMatchObject({
        status: 413,
        body: { error: 'PAYLOAD_TOO_LARGE', details: { limit: 64 * 1024 } },
      });
    }
    for (let i = 0; i < 4; i++) {
      const status = await new Promise<number>((resolve, reject) => {
        const req = http.request(
          `${h.host.url}/ingress/acme/stripe`,
          {
            method: 'POST',
            headers: { ...stripePacket(big), 'transfer-encoding': 'chunked' },
            agent: false,
          },
          (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode ?? 0));
          },
        );
        req.on('error', reject);
        for (let at = 0; at < big.length; at += 256 * 1024)
          req.write(big.slice(at, at + 256 * 1024));
        req.end();
      });
      expect(status).toBe(413);
    }
    // A client that sends its whole request before reading anything: closing on its unread bytes
    // would reset the connection and take the 413 with it (EPIPE, no answer).
    for (let i = 0; i < 4; i++) {
      const size = 12 * 1024 * 1024;
      const answer = await new Promise<string>((resolve) => {
        const s = net.connect({ port: h.host.port, host: '127.0.0.1' });
        let got = '';
        s.on('error', (e: NodeJS.ErrnoException) => (got ||= `error ${e.code}`));
        s.on('close', () => resolve(got));
        s.pause();
        const chunk = Buffer.alloc(64 * 1024, 0x61);
        let sent = 0;
        const pump = (): void => {
          while (sent < size) {
            sent += chunk.length;
            if (!s.write(chunk)) {
              s.once('drain', pump);
              return;
            }
          }
          s.on('data', (d: Buffer) => (got += d.toString()));
          s.resume();
        };
        s.on('connect', () => {
          s.write(
            `POST /ingress/acme/stripe HTTP/1.1\r\nHost: x\r\nContent-Length: ${size}\r\n\r\n`,
          );
          pump();
        });
      });
      expect(answer).toMatch(/^HTTP\/1\.1 413 [\s\S]*"error":"PAYLOAD_TOO_LARGE"/);
    }
    expect(h.errors).toEqual([]);
    await h.host.close();
  });

  it('a client that hangs up mid-upload is nobody’s error: nothing reported, the next request answered', async () => {
    const h = await hosted();
    for (let i = 0; i < 10; i++) {
      const s = await connect(h.host.port);
      s.write(
        `POST /ingress/acme/stripe HTTP/1.1\r\nHost: x\r\nContent-Length: 5000\r\n\r\n{"id":"evt_cut`,
      );
      await new Promise((r) => setTimeout(r, 20));
      s.resetAndDestroy();
    }
    await new Promise((r) => setTimeout(r, 200));
    const b = event('evt_after_abort');
    expect((await post(`${h.host.url}/ingress/acme/stripe`, stripePacket(b), b)).status).toBe(200);
    expect(h.errors).toEqual([]);
    await h.host.close();
  });
});

describe('bodies past the input limits', () => {
  it('a validly signed body nested 2,000 deep, or holding a lone surrogate escape, is a 400 INVALID_BODY', async () => {
    const h = await hosted();
    const deep = `{"id":"evt_deep","type":"x","n":${'['.repeat(2000)}${']'.repeat(2000)}}`;
    expect(await post(`${h.host.url}/ingress/acme/stripe`, stripePacket(deep), deep)).toMatchObject(
      {
        status: 400,
        body: { error: 'INVALID_BODY', message: expect.stringMatching(/over the limit/) },
      },
    );
    const lone = '{"id":"evt_lone","type":"x","name":"\\ud800"}';
    expect(await post(`${h.host.url}/ingress/acme/stripe`, stripePacket(lone), lone)).toMatchObject(
      { status: 400, body: { error: 'INVALID_BODY', path: 'body.name' } },
    );
    const huge = '{"id":"evt_huge","type":"x","amount":1e400}';
    expect(await post(`${h.host.url}/ingress/acme/stripe`, stripePacket(huge), huge)).toMatchObject(
      { status: 400, body: { error: 'INVALID_BODY', path: 'body.amount' } },
    );
    expect(h.errors).toEqual([]);
    await h.host.close();
  });
});

describe('20,000 idle sockets against a real `twinworld serve`', () => {
  const WORKERS = 4;
  const PER_WORKER = 5_000;
  const CAP = 512;

  it('its descriptors stay bounded by the cap, and a signed request is still answered', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'twinworld-idle-'));
    dirs.push(dir);
    const serve = spawn(
      process.execPath,
      [
        resolve('dist/src/cli/main.js'),
        'serve',
        '--endpoint',
        'stripe=TW_STRIPE_SECRET',
        '--port',
        '0',
        '--max-connections',
        String(CAP),
        '--headers-timeout',
        '120',
        '--root',
        join(dir, 'world'),
      ],
      {
        env: { ...process.env, TW_STRIPE_SECRET: SECRETS.stripe },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stderr = '';
    serve.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
    const workers: ChildProcess[] = [];
    try {
      const url = await new Promise<string>((resolve, reject) => {
        serve.stdout!.once('data', (c: Buffer) => {
          const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(c.toString());
          if (m === null) reject(new Error(`unexpected first line: ${c.toString()}`));
          else resolve(m[1]!);
        });
        serve.once('exit', (code) => reject(new Error(`serve exited ${code}: ${stderr}`)));
      });
      const port = Number(new URL(url).port);
      const reports = await Promise.all(
        Array.from({ length: WORKERS }, () => {
          const w = fork(
            resolve('dist/test/support/idle-sockets-worker.js'),
            [String(port), String(PER_WORKER), '150'],
            { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] },
          );
          workers.push(w);
          return new Promise<{
            connected: number;
            failed: number;
            closedByServer: number;
            open: number;
          }>((resolve) => w.once('message', (m) => resolve(m as never)));
        }),
      );
      const connected = reports.reduce((n, r) => n + r.connected, 0);
      const failed = reports.reduce((n, r) => n + r.failed, 0);
      expect(connected + failed).toBe(WORKERS * PER_WORKER);
      expect(connected).toBeGreaterThan(WORKERS * PER_WORKER * 0.9);
      // The server closed all but at most CAP of them, and holds about that many descriptors.
      const fds = readdirSync(`/proc/${serve.pid}/fd`).length;
      expect(fds).toBeLessThan(CAP + 100);
      const b = event('evt_after_flood');
      // serve runs on the real clock: sign with the real time.
      const reply = await post(
        `${url}/ingress/default/stripe`,
        stripePacket(b, Math.floor(Date.now() / 1000)),
        b,
        20_000,
      );
      expect(reply).toMatchObject({ status: 200, body: { status: 'triggered' } });
    } finally {
      for (const w of workers) if (w.connected) w.send({ cmd: 'stop' });
      serve.kill('SIGTERM');
      await new Promise((r) => serve.once('exit', r));
    }
    // No stack trace, no error line: evictions and resets are not errors.
    expect(stderr).toBe('');
  }, 240_000);
});
