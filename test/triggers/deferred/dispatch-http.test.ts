// Deferred dispatch over real loopback HTTP: a signed webhook on a deferred route is answered
// 202 Accepted with a Location; GET on it reports the dispatch's state and, once it ran, its
// run's answer; a resent delivery answers 202 again while it waits, then 200 duplicate.
import http from 'node:http';
import { describe, expect, it } from 'vitest';
import { TriggerEngine } from '../../../src/triggers/engine/engine.js';
import { startIngressHost } from '../../../src/host/ingress/ingress-host.js';
import { InProcessRunner } from '../../../src/triggers/in-process-runner.js';
import { WebhookIngress } from '../../../src/triggers/webhook/webhook-ingress.js';
import { deferredDispatchWork } from '../../../src/triggers/deferred/dispatch-work.js';
import { runDueDispatches } from '../../../src/triggers/deferred/run-due.js';
import { VirtualClock } from '../../../src/world/clock.js';
import { openWorld } from '../../../src/world/world.js';
import { NOW, SECRETS, stripePacket, T } from '../packets.js';

interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Record<string, unknown>;
}

function request(
  url: string,
  method: string,
  headers: Record<string, string> = {},
  body = '',
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      {
        method,
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>),
          });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const event = (id: string, n: number) =>
  JSON.stringify({
    id,
    object: 'event',
    type: 'customer.updated',
    created: T,
    data: { object: { id: 'cus_1', n } },
  });

describe('deferred dispatch over HTTP', () => {
  it('answers 202 with a Location that reports the dispatch, then its run', async () => {
    const clock = new VirtualClock(NOW);
    const world = openWorld({ root: ':memory:', clock, seed: 'deferred-http' });
    const runner = new InProcessRunner(world).register('sync', (input) => ({ synced: input }));
    const engine = new TriggerEngine({ world, runner });
    engine.registerRoute({
      triggerId: 'stripe.events',
      routineId: 'sync',
      buildInput: (e) => e.payload,
      dispatch: { debounce: { key: 'payload.body.data.object.id', period: 5_000 } },
    });
    const ingress = new WebhookIngress({
      endpoints: [
        {
          provider: 'stripe',
          triggerId: 'stripe.events',
          scheme: 'stripe',
          resolveSecrets: () => [SECRETS.stripe],
        },
      ],
    });
    engine.registerSource(ingress);
    await engine.start();
    const host = await startIngressHost({ world, engine, ingress });
    try {
      const url = `${host.url}/ingress/acme/stripe`;
      const first = await request(url, 'POST', stripePacket(event('evt_1', 1)), event('evt_1', 1));
      const second = await request(url, 'POST', stripePacket(event('evt_2', 2)), event('evt_2', 2));
      for (const reply of [first, second]) {
        expect(reply.status).toBe(202);
        expect(reply.body).toMatchObject({ status: 'deferred', state: 'debounced' });
      }
      const id = first.body.dispatchId as string;
      expect(second.body).toMatchObject({ dispatchId: id, pings: 2 });
      expect(first.headers.location).toMatch(
        new RegExp(`^/dispatches/${id}\\?key=[A-Za-z0-9_-]{43}$`),
      );
      expect(second.headers.location).toBe(first.headers.location);

      const waiting = await request(`${host.url}${first.headers.location}`, 'GET');
      expect(waiting.status).toBe(200);
      expect(waiting.body).toMatchObject({
        dispatchId: id,
        state: 'debounced',
        tenantId: 'acme',
        triggerId: 'stripe.events',
        dedupeKey: 'stripe:evt_2',
        pings: 2,
        dueAt: '2026-03-01T12:00:05.000Z',
        debounce: { key: 'cus_1', mode: 'trailing' },
        run: null,
      });
      // A resent delivery while it waits: 202 again, the same dispatch.
      const resent = await request(url, 'POST', stripePacket(event('evt_1', 1)), event('evt_1', 1));
      expect(resent.status).toBe(202);
      expect(resent.body).toMatchObject({ dispatchId: id, state: 'debounced' });

      await clock.set('2026-03-01T12:00:05.000Z');
      await runDueDispatches(deferredDispatchWork(engine), clock.now());
      const ran = await request(`${host.url}${first.headers.location}`, 'GET');
      expect(ran.body).toMatchObject({
        state: 'dispatched',
        dispatchedAt: '2026-03-01T12:00:05.000Z',
        run: {
          status: 'triggered',
          attempt: 1,
          routineResult: {
            synced: { eventType: 'customer.updated', body: JSON.parse(event('evt_2', 2)) },
          },
          error: null,
        },
      });
      // Once run, a resent delivery is a duplicate, as dedupe answers today.
      const after = await request(url, 'POST', stripePacket(event('evt_1', 1)), event('evt_1', 1));
      expect(after.status).toBe(200);
      expect(after.body).toMatchObject({
        status: 'duplicate',
        original: 'triggered',
        dispatchId: id,
      });

      const missing = await request(`${host.url}/dispatches/dsp_${'0'.repeat(32)}`, 'GET');
      expect(missing.status).toBe(404);
      expect(missing.body).toMatchObject({ error: 'UNKNOWN_DISPATCH', path: 'id' });
      const garbage = await request(`${host.url}/dispatches/%E0%A4%A`, 'GET');
      expect(garbage.status).toBe(404);
      const posted = await request(`${host.url}${first.headers.location}`, 'POST', {}, '{}');
      expect(posted.status).toBe(405);
      expect(posted.headers.allow).toBe('GET, HEAD');
      // As the ingress paths answer a wrong method, not as a bad argument.
      expect(posted.body).toMatchObject({ error: 'METHOD_NOT_ALLOWED' });
    } finally {
      await host.close();
    }
  });

  it('answers only a caller holding the capability of its Location: 404 otherwise, as for an unknown id', async () => {
    const clock = new VirtualClock(NOW);
    const world = openWorld({ root: ':memory:', clock, seed: 'deferred-http-cap' });
    const runner = new InProcessRunner(world).register('sync', (input) => ({ synced: input }));
    const engine = new TriggerEngine({ world, runner });
    engine.registerRoute({
      triggerId: 'stripe.events',
      routineId: 'sync',
      buildInput: (e) => e.payload,
      dispatch: { delay: 60_000 },
    });
    const ingress = new WebhookIngress({
      endpoints: ['acme', 'globex'].map((tenantId) => ({
        tenantId,
        provider: 'stripe',
        triggerId: 'stripe.events',
        scheme: 'stripe' as const,
        resolveSecrets: () => [SECRETS.stripe],
      })),
    });
    engine.registerSource(ingress);
    await engine.start();
    const host = await startIngressHost({ world, engine, ingress });
    try {
      const post = (tenant: string, evt: string) =>
        request(
          `${host.url}/ingress/${tenant}/stripe`,
          'POST',
          stripePacket(event(evt, 1)),
          event(evt, 1),
        );
      const acme = await post('acme', 'evt_a');
      const globex = await post('globex', 'evt_g');
      const acmeId = acme.body.dispatchId as string;
      const globexId = globex.body.dispatchId as string;
      const keyOf = (reply: Reply) =>
        new URL(`http://x${reply.headers.location}`).searchParams.get('key');
      expect((await request(`${host.url}${acme.headers.location}`, 'GET')).status).toBe(200);
      expect((await request(`${host.url}${globex.headers.location}`, 'GET')).status).toBe(200);

      /** A 404's body with the id it names taken out: what a caller could compare. */
      const notFound = async (path: string, id: string) => {
        const reply = await request(`${host.url}${path}`, 'GET');
        return {
          status: reply.status,
          body: JSON.parse(JSON.stringify(reply.body).replaceAll(id, '<id>')),
        };
      };
      const unknown = `dsp_${'0'.repeat(32)}`;
      const expected = await notFound(`/dispatches/${unknown}?key=${keyOf(acme)}`, unknown);
      expect(expected).toMatchObject({
        status: 404,
        body: { error: 'UNKNOWN_DISPATCH', path: 'id' },
      });
      for (const [path, id] of [
        // the id alone, which anyone who knows the tenant and delivery id can derive
        [`/dispatches/${globexId}`, globexId],
        [`/dispatches/${acmeId}`, acmeId],
        // another dispatch's capability
        [`/dispatches/${globexId}?key=${keyOf(acme)}`, globexId],
        // a made-up one, of the right shape or not
        [`/dispatches/${acmeId}?key=${'A'.repeat(43)}`, acmeId],
        [`/dispatches/${acmeId}?key=short`, acmeId],
        [`/dispatches/${acmeId}?key=`, acmeId],
        [`/dispatches/${unknown}`, unknown],
      ] as const)
        expect({ path, ...(await notFound(path, id)) }).toEqual({ path, ...expected });
    } finally {
      await host.close();
    }
  });
});
