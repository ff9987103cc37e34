// A Stripe twin on loopback for the SDK conformance suites: a world on a durable home, the host
// with the Stripe surface on a real port, a verifying receiver, and (for fault injection) a second
// listener that drops the connection of chosen requests after the host has answered them.
import http from 'node:http';
import Stripe from 'stripe';
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

/** stripe-node pointed at a twin that has one endpoint taking every event: where an SDK suite starts. */
export interface StripeSdk {
  readonly twin: StripeTwin;
  readonly stripe: Stripe;
  /** The endpoint's signing secret. */
  readonly secret: string;
  /** Every event delivered so far (once the host is idle), each verified with the secret. */
  delivered(): Promise<Stripe.Event[]>;
  /**
   * The delivered events whose object is one of `ids`, in the log's order: events.list's, read
   * oldest first (deliveries run concurrently, so arrival order is not Stripe's order).
   */
  eventsAbout(...ids: string[]): Promise<Stripe.Event[]>;
}

export async function startStripeSdk(
  spec: string,
  seed: string,
  /** The world clock's start, an ISO time. */
  start: string,
  key: string,
): Promise<StripeSdk> {
  const twin = await startStripeTwin(spec, seed, Date.parse(start));
  const stripe = new Stripe(key, {
    host: '127.0.0.1',
    port: twin.listening.port,
    protocol: 'http',
  });
  const { secret } = await stripe.webhookEndpoints.create({
    url: `${twin.receiver.url}/hooks`,
    enabled_events: ['*'],
  });
  const delivered = async () => {
    await twin.host.idle();
    return twin.receiver.requests.map((p) =>
      stripe.webhooks.constructEvent(p.body, String(p.headers['stripe-signature']), secret!),
    );
  };
  return {
    twin,
    stripe,
    secret: secret!,
    delivered,
    async eventsAbout(...ids) {
      const mine = (await delivered()).filter((e) =>
        ids.includes((e.data.object as { id: string }).id),
      );
      const logged = await stripe.events.list({ limit: 100 }).autoPagingToArray({ limit: 10_000 });
      const order = new Map(logged.map((e, i) => [e.id, -i]));
      return mine.sort((a, b) => order.get(a.id)! - order.get(b.id)!);
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
