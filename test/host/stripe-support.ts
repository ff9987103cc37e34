// A Stripe twin on loopback for the SDK conformance suites: a world on a durable home, the host
// with the Stripe surface on a real port, a verifying receiver, and (for fault injection) a second
// listener that drops the connection of chosen requests after the host has answered them.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { VirtualClock } from '../../src/world/clock.js';
import {
  advanceWorld,
  createHost,
  listen,
  type Listening,
  type SurfaceHost,
} from '../../src/host/index.js';
import type { World } from '../../src/world/world.js';
import { stripeSurface } from '../../packs/stripe/surface/index.js';
import { openWorldAt } from '../support/world-at.js';
import { startReceiver, type ReceivedRequest, type Receiver } from '../support/receiver.js';

export interface StripeTwin {
  readonly world: World;
  readonly host: SurfaceHost;
  readonly listening: Listening;
  readonly receiver: Receiver;
  close(): Promise<void>;
}

export async function startStripeTwin(
  spec: string,
  seed = 'stripe-surface',
  start = Date.now(),
  /** A receiver to share (another run's, so endpoint URLs match); left open on close. */
  shared?: Receiver,
): Promise<StripeTwin> {
  const world = openWorldAt(spec, { clock: new VirtualClock(start), seed });
  const host = createHost({ world });
  host.serve(
    stripeSurface({
      packTwin: (pack) => host.packTwin(pack),
      advanceClock: (to) => advanceWorld(host, to),
    }),
  );
  const listening = await listen(host);
  const receiver = shared ?? (await startReceiver());
  return {
    world,
    host,
    listening,
    receiver,
    async close() {
      await listening.close();
      if (shared === undefined) await receiver.close();
      await host.close();
      await world.close();
    },
  };
}

/** Waits (bounded) until the receiver holds `n` requests. */
export async function received(
  receiver: Receiver,
  n: number,
  ms = 15_000,
): Promise<ReceivedRequest[]> {
  const until = Date.now() + ms;
  while (receiver.requests.length < n) {
    if (Date.now() > until)
      throw new Error(`receiver got ${receiver.requests.length} of ${n} webhooks in ${ms} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
  return receiver.requests;
}

/**
 * Another port onto the same host that, for requests `drop` picks, lets the host run and answer,
 * then destroys the connection instead of writing the answer: a connection lost after the commit.
 */
export async function droppingListener(
  host: SurfaceHost,
  drop: (request: Request, body: string) => boolean,
): Promise<{ port: number; dropped: string[]; close: () => Promise<void> }> {
  const dropped: string[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const headers = new Headers();
      for (const [k, v] of Object.entries(req.headers))
        if (typeof v === 'string') headers.set(k, v);
      const request = new Request(`${host.origin}${req.url}`, {
        method: req.method!,
        headers,
        ...(req.method === 'GET' ? {} : { body }),
      });
      const dropIt = drop(request, body);
      void host.fetch(request).then(async (response) => {
        const text = await response.text();
        if (dropIt) {
          dropped.push(text);
          req.socket.destroy();
          return;
        }
        const out: Record<string, string> = {};
        response.headers.forEach((v, k) => (out[k] = v));
        res.writeHead(response.status, out);
        res.end(text);
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    dropped,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
