// The Transport port's conformance suite, run unchanged against every implementation: HTTP on
// 127.0.0.1, the in-process transport, the walk's fault-injecting receivers, and the walk's
// timing and mount transports wrapped around HTTP. Each case says only how to stand up a
// receiver that behaves a given way; the suite states the contract.
//
// The contract: the receiver gets the body byte for byte and every header (names compared
// without case), once per send; send resolves with the receiver's status and its Retry-After in
// seconds; a refused connection rejects as TransportFailure 'not_sent', a receiver slower
// than timeoutMs as 'timeout', a dropped connection as 'connection_reset' — always a rejected
// promise, never another error; now() reads the clock the receiver verifies signatures against.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { getScheme } from '../../src/events/signing/index.js';
import { HttpTransport } from '../../src/events/transports/http-transport.js';
import { InProcessTransport } from '../../src/events/transports/in-process-transport.js';
import {
  TransportFailure,
  type OutgoingRequest,
  type Transport,
  type TransportResponse,
} from '../../src/events/transports/transport.js';
import { FaultReceiver } from '../../src/walk/fault-receiver.js';
import { mountPrefix, MountTransport } from '../../src/walk/mount-transport.js';
import { receiverTransport, receiverUrl } from '../../src/walk/receiver-transport.js';
import { TimingTransport } from '../../src/walk/timing-transport.js';
import { VirtualClock } from '../../src/world/clock.js';

/** How a receiver behaves. */
type Behaviour =
  | { readonly kind: 'answer'; readonly status: number; readonly retryAfterSec?: number }
  /** Takes longer than the sender's timeout. */
  | { readonly kind: 'slow' }
  /** Drops the connection after reading the request. */
  | { readonly kind: 'reset' }
  /** Nothing is there. */
  | { readonly kind: 'refuse' };

interface Seen {
  /** Header names lower-cased: HTTP does not keep their case. */
  readonly headers: Record<string, string>;
  readonly body: string;
}

interface Bench {
  readonly transport: Transport;
  readonly receivers: readonly { readonly url: string; seen(): Seen[] }[];
  /** The clock receivers verify signatures against. */
  readonly clock: VirtualClock;
  close(): Promise<void>;
}

interface TransportCase {
  readonly name: string;
  open(behaviours: readonly Behaviour[]): Promise<Bench>;
}

const lower = (
  headers: Readonly<Record<string, string | string[] | undefined>>,
): Record<string, string> =>
  Object.fromEntries(
    Object.entries(headers).map(([k, v]) => [
      k.toLowerCase(),
      Array.isArray(v) ? v.join(', ') : String(v),
    ]),
  );

// ---- receivers on 127.0.0.1 -----------------------------------------------------------------

interface HttpReceiver {
  readonly base: string;
  readonly seen: Seen[];
  close(): Promise<void>;
}

async function listen(server: http.Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

async function httpReceiver(behaviour: Behaviour): Promise<HttpReceiver> {
  const seen: Seen[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push({ headers: lower(req.headers), body: Buffer.concat(chunks).toString('utf8') });
      if (behaviour.kind === 'answer') {
        res.writeHead(
          behaviour.status,
          behaviour.retryAfterSec === undefined
            ? {}
            : { 'retry-after': String(behaviour.retryAfterSec) },
        );
        res.end('a body the sender must drop');
      } else if (behaviour.kind === 'reset') {
        req.socket.destroy();
      }
      // slow: never answers; close() drops the connection
    });
  });
  const port = await listen(server);
  const close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  if (behaviour.kind === 'refuse') {
    // a port that was just ours and is closed again: nothing listens there
    await close();
    return { base: `http://127.0.0.1:${port}`, seen, close: async () => {} };
  }
  return { base: `http://127.0.0.1:${port}`, seen, close };
}

const START = '2026-07-01T00:00:00.000Z';

async function overHttp(
  behaviours: readonly Behaviour[],
  wrap: (
    inner: HttpTransport,
    receivers: HttpReceiver[],
  ) => { transport: Transport; urls: string[] },
): Promise<Bench> {
  const clock = new VirtualClock(START);
  const receivers = await Promise.all(behaviours.map(httpReceiver));
  const inner = new HttpTransport({ clock });
  const { transport, urls } = wrap(inner, receivers);
  return {
    transport,
    clock,
    receivers: receivers.map((r, i) => ({ url: urls[i]!, seen: () => r.seen })),
    close: async () => {
      transport.close?.();
      await Promise.all(receivers.map((r) => r.close()));
    },
  };
}

// ---- the implementations --------------------------------------------------------------------

const cases: TransportCase[] = [
  {
    name: 'HttpTransport',
    open: (behaviours) =>
      overHttp(behaviours, (inner, rs) => ({
        transport: inner,
        urls: rs.map((r) => `${r.base}/hooks/x?y=1`),
      })),
  },
  {
    name: 'InProcessTransport',
    async open(behaviours) {
      const clock = new VirtualClock(START);
      const seen = behaviours.map((): Seen[] => []);
      const transport = new InProcessTransport(clock, (req) => {
        const i = Number(/^inproc:\/\/r(\d+)\//.exec(req.url)?.[1]);
        const b = behaviours[i]!;
        // In process, the network is the handler: a refused connection, a slow or a dropped
        // receiver each throws the failure its sender would see.
        if (b.kind === 'refuse') throw new TransportFailure('not_sent');
        seen[i]!.push({ headers: lower(req.headers), body: req.body });
        if (b.kind === 'slow') throw new TransportFailure('timeout');
        if (b.kind === 'reset') throw new TransportFailure('connection_reset');
        return b.retryAfterSec === undefined
          ? b.status
          : ({ status: b.status, retryAfterSec: b.retryAfterSec } satisfies TransportResponse);
      });
      return {
        transport,
        clock,
        receivers: behaviours.map((_, i) => ({
          url: `inproc://r${i}/hooks`,
          seen: () => seen[i]!,
        })),
        close: async () => {},
      };
    },
  },
  {
    name: 'walk fault receivers',
    async open(behaviours) {
      const clock = new VirtualClock(START);
      const receivers = new Map<string, FaultReceiver>();
      const urls = behaviours.map((b, i) => {
        const name = `r${i}`;
        if (b.kind === 'refuse') return `${receiverUrl('nobody-listens')}/hooks`;
        const answer =
          b.kind === 'answer'
            ? b.retryAfterSec === undefined
              ? b.status
              : { status: b.status, retryAfterSec: b.retryAfterSec }
            : b.kind === 'reset'
              ? ('reset' as const)
              : 200;
        const profile = {
          mix: [{ answer, weight: 1 }],
          ...(b.kind === 'slow' ? { latencyMs: 60_000 } : {}),
        };
        receivers.set(
          name,
          new FaultReceiver(name, receiverUrl(name), profile, clock, 'conformance'),
        );
        return `${receiverUrl(name)}/hooks`;
      });
      const seen = (i: number): Seen[] =>
        receivers
          .get(`r${i}`)
          ?.requests.map((r) => ({ headers: lower(r.headers), body: r.body })) ?? [];
      return {
        transport: receiverTransport(clock, receivers),
        clock,
        receivers: urls.map((url, i) => ({ url, seen: () => seen(i) })),
        close: async () => {},
      };
    },
  },
  {
    name: 'walk TimingTransport (around HTTP)',
    open: (behaviours) =>
      overHttp(behaviours, (inner, rs) => ({
        transport: new TimingTransport(inner, () => {}),
        urls: rs.map((r) => `${r.base}/hooks`),
      })),
  },
  {
    name: 'walk MountTransport (around HTTP)',
    open: (behaviours) =>
      overHttp(behaviours, (inner, rs) => {
        let transport: Transport = inner;
        rs.forEach(
          (r, i) => (transport = new MountTransport(mountPrefix(`r${i}`), `${r.base}/`, transport)),
        );
        return { transport, urls: rs.map((_, i) => `${mountPrefix(`r${i}`)}hooks/x`) };
      }),
  },
];

// ---- the contract ---------------------------------------------------------------------------

const SECRET = 'whsec_Y29uZm9ybWFuY2Ugc3VpdGUgc2VjcmV0IGtleQ==';
const TIMEOUT_MS = 150;

function request(
  url: string,
  body = '{"id":"evt_1","name":"Zoë 🚀","note":"a, b; c"}',
  extra: Record<string, string> = {},
): OutgoingRequest {
  return {
    url,
    body,
    headers: {
      'content-type': 'application/json',
      'X-Mixed-Case': 'Value, with; punctuation',
      ...extra,
    },
    timeoutMs: TIMEOUT_MS,
  };
}

async function failure(p: Promise<unknown>): Promise<TransportFailure> {
  try {
    await p;
  } catch (error) {
    expect(error).toBeInstanceOf(TransportFailure);
    return error as TransportFailure;
  }
  return expect.unreachable(
    'send resolved; it should have rejected with a TransportFailure',
  ) as never;
}

for (const c of cases) {
  describe(`Transport conformance: ${c.name}`, () => {
    let bench: Bench | undefined;
    afterEach(async () => {
      await bench?.close();
      bench = undefined;
    });
    const open = async (behaviours: Behaviour[]) => (bench = await c.open(behaviours));

    it("delivers body and headers intact, once per send, and resolves with each receiver's status", async () => {
      const statuses = [200, 204, 410, 500];
      const b = await open(statuses.map((status) => ({ kind: 'answer', status })));
      const responses = await Promise.all(
        b.receivers.map((r, i) =>
          b.transport.send(
            request(r.url, `{"receiver":${i},"name":"Zoë 🚀"}`, { 'X-Receiver': String(i) }),
          ),
        ),
      );
      expect(responses.map((r) => r.status)).toEqual(statuses);
      for (const [i, r] of b.receivers.entries()) {
        expect(r.seen()).toHaveLength(1);
        const seen = r.seen()[0]!;
        expect(seen.body).toBe(`{"receiver":${i},"name":"Zoë 🚀"}`);
        expect(seen.headers).toMatchObject({
          'content-type': 'application/json',
          'x-mixed-case': 'Value, with; punctuation',
          'x-receiver': String(i),
        });
      }
    });

    it("a signed packet, large and non-ASCII, verifies at the receiver on the transport's clock", async () => {
      const b = await open([{ kind: 'answer', status: 200 }]);
      const body = JSON.stringify({ id: 'evt_big', blob: 'é🚀x'.repeat(40_000) });
      const scheme = getScheme('standard-webhooks');
      const timestampSec = Math.floor(b.transport.now() / 1000);
      const signed = scheme.sign({ body, secrets: [SECRET], timestampSec, messageId: 'msg_1' });
      await b.transport.send(request(b.receivers[0]!.url, body, signed));
      const seen = b.receivers[0]!.seen()[0]!;
      expect(Buffer.byteLength(seen.body)).toBe(Buffer.byteLength(body));
      expect(
        scheme.verify({
          headers: seen.headers,
          rawBody: seen.body,
          secrets: [SECRET],
          nowSec: Math.floor(b.clock.now() / 1000),
        }),
      ).toMatchObject({ timestampSec });
    });

    it('sends in a row to one receiver are each delivered and answered', async () => {
      const b = await open([{ kind: 'answer', status: 202 }]);
      for (let i = 0; i < 12; i++)
        expect((await b.transport.send(request(b.receivers[0]!.url, `{"n":${i}}`))).status).toBe(
          202,
        );
      expect(b.receivers[0]!.seen().map((s) => s.body)).toEqual(
        Array.from({ length: 12 }, (_, i) => `{"n":${i}}`),
      );
    });

    it('passes Retry-After in seconds, and none when the receiver sends none', async () => {
      const b = await open([
        { kind: 'answer', status: 429, retryAfterSec: 120 },
        { kind: 'answer', status: 503, retryAfterSec: 0 },
        { kind: 'answer', status: 503 },
      ]);
      const [tooMany, unavailable, plain] = await Promise.all(
        b.receivers.map((r) => b.transport.send(request(r.url))),
      );
      expect(tooMany).toMatchObject({ status: 429, retryAfterSec: 120 });
      expect(unavailable).toMatchObject({ status: 503, retryAfterSec: 0 });
      expect(plain!.status).toBe(503);
      expect(plain!.retryAfterSec).toBeUndefined();
    });

    it('a refused connection rejects as not_sent: the request provably never left', async () => {
      const b = await open([{ kind: 'refuse' }]);
      expect((await failure(b.transport.send(request(b.receivers[0]!.url)))).kind).toBe('not_sent');
      expect(b.receivers[0]!.seen()).toEqual([]);
    });

    it('a receiver slower than the timeout rejects as timeout (it may have got the packet)', async () => {
      const b = await open([{ kind: 'slow' }]);
      expect((await failure(b.transport.send(request(b.receivers[0]!.url)))).kind).toBe('timeout');
      expect(b.receivers[0]!.seen().length).toBeLessThanOrEqual(1);
    });

    it('a dropped connection rejects as connection_reset', async () => {
      const b = await open([{ kind: 'reset' }]);
      expect((await failure(b.transport.send(request(b.receivers[0]!.url)))).kind).toBe(
        'connection_reset',
      );
    });

    it('failures are rejections, never synchronous throws, and one failure does not spoil the next send', async () => {
      const b = await open([{ kind: 'refuse' }, { kind: 'answer', status: 200 }]);
      let pending: Promise<TransportResponse> | undefined;
      expect(() => (pending = b.transport.send(request(b.receivers[0]!.url)))).not.toThrow();
      await failure(pending!);
      expect((await b.transport.send(request(b.receivers[1]!.url))).status).toBe(200);
    });

    it('now() reads the clock receivers verify against', async () => {
      const b = await open([{ kind: 'answer', status: 200 }]);
      expect(b.transport.now()).toBe(b.clock.now());
      await b.clock.advance(90_000);
      expect(b.transport.now()).toBe(Date.parse(START) + 90_000);
    });
  });
}

describe('beyond the port: what only some transports add', () => {
  it('HttpTransport without a clock signs on wall time', () => {
    const transport = new HttpTransport();
    const before = Date.now();
    const now = transport.now();
    expect(now).toBeGreaterThanOrEqual(before);
    expect(now).toBeLessThanOrEqual(Date.now());
    transport.close();
  });

  it("TimingTransport records one wall time per send, failures included, under the request's own headers object", async () => {
    const records: { headers: OutgoingRequest['headers']; wallMs: number }[] = [];
    const ok = await httpReceiver({ kind: 'answer', status: 200 });
    const refused = await httpReceiver({ kind: 'refuse' });
    const transport = new TimingTransport(new HttpTransport(), (headers, wallMs) =>
      records.push({ headers, wallMs }),
    );
    const first = request(`${ok.base}/a`);
    const second = request(`${refused.base}/b`);
    await transport.send(first);
    await failure(transport.send(second));
    expect(records.map((r) => r.headers)).toEqual([first.headers, second.headers]);
    expect(records[0]!.headers).toBe(first.headers);
    expect(records.every((r) => r.wallMs >= 0)).toBe(true);
    transport.close();
    await ok.close();
  });
});
