// HttpTransport and a kept-alive connection the receiver dropped: a request reset on a reused
// connection before any answer is written once more on a new connection; a reset on a new
// connection, or a second one, is the attempt's failure (connection_reset), never a loop.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { HttpTransport } from '../../../src/events/transports/http-transport.js';
import { TransportFailure } from '../../../src/events/transports/transport.js';

interface Seen {
  /** Which connection (1, 2, …) and which request on it (1, 2, …). */
  readonly connection: number;
  readonly nth: number;
  readonly body: string;
}

/**
 * A receiver that answers 200 unless `reset(connection, nth)` says to drop the connection on
 * that request: it reads the request, then resets the socket without a byte of an answer.
 */
async function receiver(reset: (connection: number, nth: number) => boolean) {
  const seen: Seen[] = [];
  let connections = 0;
  const served = new WeakMap<object, { connection: number; requests: number }>();
  const server = http.createServer((req, res) => {
    let at = served.get(req.socket);
    if (at === undefined) served.set(req.socket, (at = { connection: ++connections, requests: 0 }));
    const nth = ++at.requests;
    let body = '';
    req.setEncoding('utf8').on('data', (c: string) => (body += c));
    req.on('end', () => {
      seen.push({ connection: at.connection, nth, body });
      if (reset(at.connection, nth)) req.socket.resetAndDestroy();
      else res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return {
    url,
    seen,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

const closers: (() => unknown)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function setup(reset: (connection: number, nth: number) => boolean) {
  const r = await receiver(reset);
  const transport = new HttpTransport();
  closers.push(r.close, () => transport.close());
  const send = (body: string) =>
    transport.send({ url: r.url, headers: {}, body, timeoutMs: 5_000 });
  return { ...r, send };
}

describe('HttpTransport on a kept-alive connection the receiver dropped', () => {
  it('writes the request once more on a new connection, and the answer is the new one’s', async () => {
    const r = await setup((connection, nth) => connection === 1 && nth === 2);
    expect((await r.send('first')).status).toBe(200);
    expect((await r.send('second')).status).toBe(200);
    expect(r.seen).toEqual([
      { connection: 1, nth: 1, body: 'first' },
      { connection: 1, nth: 2, body: 'second' },
      { connection: 2, nth: 1, body: 'second' },
    ]);
  });

  it('a reset on a new connection is the failure, with no second request', async () => {
    const r = await setup(() => true);
    const error = await r.send('only').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TransportFailure);
    expect((error as TransportFailure).kind).toBe('connection_reset');
    expect(r.seen).toEqual([{ connection: 1, nth: 1, body: 'only' }]);
  });

  it('a reused connection and then the new one both reset: one failure after two requests', async () => {
    const r = await setup((connection, nth) => !(connection === 1 && nth === 1));
    expect((await r.send('first')).status).toBe(200);
    const error = await r.send('second').catch((e: unknown) => e);
    expect((error as TransportFailure).kind).toBe('connection_reset');
    expect(r.seen.map((s) => [s.connection, s.nth])).toEqual([
      [1, 1],
      [1, 2],
      [2, 1],
    ]);
  });
});
