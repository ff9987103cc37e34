// The HTTP ingress host over real loopback HTTP: the answer contract's status codes, keep-alive,
// the body limit, and the graceful close order (stop intake, wait for in-flight, stop the
// engine, close the store).
import http from 'node:http';
import { describe, expect, it } from 'vitest';
import { startIngressHost, type IngressHost } from '../../src/host/ingress/ingress-host.js';
import { REFUSALS_TYPE } from '../../src/triggers/refusal-windows.js';
import { TriggerEngine } from '../../src/triggers/engine/engine.js';
import { InProcessRunner } from '../../src/triggers/in-process-runner.js';
import { WebhookIngress } from '../../src/triggers/webhook/webhook-ingress.js';
import { VirtualClock } from '../../src/world/clock.js';
import { openWorld } from '../../src/world/world.js';
import {
  ingressHarness,
  NOW,
  SECRETS,
  slackPacket,
  stripePacket,
  T,
  type IngressHarness,
} from './packets.js';
import { expectRefusal } from './support.js';

interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Record<string, unknown>;
  localPort: number;
}

function post(
  url: string,
  headers: Record<string, string>,
  body: string | Buffer,
  options: { agent?: http.Agent; method?: string } = {},
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      {
        method: options.method ?? 'POST',
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        agent: options.agent ?? false,
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
            localPort: req.socket?.localPort ?? 0,
          });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const body = (id = 'evt_host_1', extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    id,
    object: 'event',
    type: 'customer.created',
    created: T,
    data: { object: { id: 'cus_1' } },
    ...extra,
  });

async function hosted(
  options: Parameters<typeof ingressHarness>[1] = {},
): Promise<IngressHarness & { host: IngressHost }> {
  const h = await ingressHarness([], options);
  const host = await startIngressHost({
    world: h.world,
    engine: h.engine,
    ingress: h.ingress,
    port: 0,
  });
  return { ...h, host };
}

describe('POST /ingress/<tenant>/<provider>', () => {
  it('listens on 127.0.0.1 on a free port and answers 200 with the answer as JSON: triggered, then duplicate', async () => {
    const h = await hosted();
    expect(h.host.url).toBe(`http://127.0.0.1:${h.host.port}`);
    expect(h.host.port).toBeGreaterThan(0);
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const first = await post(`${h.host.url}/ingress/acme/stripe`, stripePacket(body()), body(), {
      agent,
    });
    expect(first.status).toBe(200);
    expect(first.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(first.body).toMatchObject({
      status: 'triggered',
      tenantId: 'acme',
      dedupeKey: 'stripe:evt_host_1',
      routineResult: { ok: true },
      scheduledAt: NOW,
    });
    const second = await post(
      `${h.host.url}/ingress/acme/stripe`,
      stripePacket(body(), T + 1),
      body(),
      { agent },
    );
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({ status: 'duplicate', original: 'triggered' });
    // keep-alive: the second request reused the first connection
    expect(second.localPort).toBe(first.localPort);
    agent.destroy();
    await h.host.close();
  });

  it('answers 409 with Retry-After while the first delivery is still running', async () => {
    const clock = new VirtualClock(NOW);
    const world = openWorld({ root: ':memory:', clock });
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const runner = new InProcessRunner(world).register('slow', async () => (await gate, 'done'));
    const engine = new TriggerEngine({ world, runner });
    engine.registerRoute({ triggerId: 'stripe.events', routineId: 'slow', buildInput: () => null });
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
    const url = `${host.url}/ingress/acme/stripe`;
    const first = post(url, stripePacket(body()), body());
    await new Promise((r) => setTimeout(r, 50));
    const second = await post(url, stripePacket(body()), body());
    expect(second.status).toBe(409);
    expect(second.headers['retry-after']).toBe('1');
    expect(second.body).toMatchObject({ status: 'in_progress', attempt: 1 });
    release();
    expect((await first).status).toBe(200);
    await host.close();
  });

  it("answers Slack's url_verification 200 with its challenge, so Slack takes the Request URL", async () => {
    const h = await hosted();
    const check = JSON.stringify({
      token: 't',
      challenge: '3eZbrw1aBm2rZgRN',
      type: 'url_verification',
    });
    const answer = await post(`${h.host.url}/ingress/acme/slack`, slackPacket(check), check);
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(answer.body).toEqual({ challenge: '3eZbrw1aBm2rZgRN' });
    const forged = await post(
      `${h.host.url}/ingress/acme/slack`,
      { ...slackPacket(check), 'x-slack-signature': 'v0=00' },
      check,
    );
    expect(forged.status).toBe(401);
    expect(h.received).toEqual([]);
    await h.host.close();
  });

  it('answers 200 for filtered', async () => {
    const clock = new VirtualClock(NOW);
    const world = openWorld({ root: ':memory:', clock });
    const engine = new TriggerEngine({ world, runner: { run: async () => 'ran' } });
    engine.registerRoute({
      triggerId: 'stripe.events',
      routineId: 'r',
      filter: () => false,
      buildInput: () => null,
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
    const reply = await post(`${host.url}/ingress/acme/stripe`, stripePacket(body()), body());
    expect(reply).toMatchObject({ status: 200, body: { status: 'filtered' } });
    await host.close();
  });

  it.each([
    [
      'a bad signature',
      401,
      'BAD_SIGNATURE',
      () => stripePacket(body(), T, 'whsec_wrongSecret000000000000000000001'),
      body(),
    ],
    ['a stale timestamp', 401, 'STALE_TIMESTAMP', () => stripePacket(body(), T - 600), body()],
    ['a missing signature header', 401, 'MISSING_HEADER', () => ({}), body()],
    ['a body that is not JSON', 400, 'INVALID_BODY', () => stripePacket('not json'), 'not json'],
    [
      'an event without an id',
      400,
      'INVALID_BODY',
      () => stripePacket('{"type":"x"}'),
      '{"type":"x"}',
    ],
  ])(
    'refuses %s with %i and the error as JSON, counted without the body',
    async (_what, status, code, headers, payload) => {
      const h = await hosted();
      const reply = await post(`${h.host.url}/ingress/acme/stripe`, headers(), payload);
      expect(reply.status).toBe(status);
      expect(reply.body).toMatchObject({ error: code });
      expect(
        (await h.world.twin('triggers').list(REFUSALS_TYPE)).map((r) => r.fields.byCode),
      ).toEqual([{ [code]: 1 }]);
      expect(h.received).toEqual([]);
      await h.host.close();
    },
  );

  it('answers 422 for a payload conflict and 500 (retryable) when the routine did not finish', async () => {
    const h = await hosted();
    const url = `${h.host.url}/ingress/acme/stripe`;
    await post(url, stripePacket(body()), body());
    const conflict = await post(
      url,
      stripePacket(body('evt_host_1', { extra: 1 })),
      body('evt_host_1', { extra: 1 }),
    );
    expect(conflict).toMatchObject({
      status: 422,
      body: { error: 'PAYLOAD_CONFLICT', path: 'payload' },
    });
    h.engine.registerRoute({ triggerId: 'boom', routineId: 'missing', buildInput: () => null });
    h.ingress.addEndpoint({
      provider: 'boom',
      triggerId: 'boom',
      scheme: 'stripe',
      resolveSecrets: () => [SECRETS.stripe],
    });
    const failed = await post(
      `${h.host.url}/ingress/acme/boom`,
      stripePacket(body('evt_boom')),
      body('evt_boom'),
    );
    expect(failed).toMatchObject({
      status: 500,
      body: { error: 'ROUTINE_FAILED', details: { error: 'UNKNOWN_ROUTINE', attempt: 1 } },
    });
    await h.host.close();
  });

  it('answers 404 for an unknown tenant, provider or path (not recorded), 405 for other methods', async () => {
    const h = await hosted();
    h.ingress.addEndpoint({
      tenantId: 'acme',
      provider: 'own',
      triggerId: 'stripe.events',
      scheme: 'stripe',
      resolveSecrets: () => [SECRETS.stripe],
    });
    for (const path of [
      '/ingress/globex/own',
      '/ingress/acme/paypal',
      '/ingress/acme',
      '/ingress/acme/stripe/extra',
      '/webhooks',
      '/ingress/%E0%A4%A/stripe',
    ]) {
      const reply = await post(`${h.host.url}${path}`, {}, '{}');
      expect(reply.status, path).toBe(404);
      expect(reply.body.error).toBe('UNKNOWN_ENDPOINT');
    }
    const get = await post(`${h.host.url}/ingress/acme/stripe`, {}, '', { method: 'GET' });
    expect(get.status).toBe(405);
    expect(get.headers.allow).toBe('POST');
    expect(await h.world.twin('triggers').head()).toBe(0);
    await h.host.close();
  });

  it('answers 413 for a body over the limit without reading it, and records the refusal', async () => {
    const h = await hosted({ maxBodyBytes: 1024 });
    const big = body('evt_big', { pad: 'x'.repeat(4096) });
    const reply = await post(`${h.host.url}/ingress/acme/stripe`, stripePacket(big), big);
    expect(reply.status).toBe(413);
    expect(reply.body).toMatchObject({ error: 'PAYLOAD_TOO_LARGE', details: { limit: 1024 } });
    expect(reply.headers.connection).toBe('close');
    expect(
      (await h.world.twin('triggers').list(REFUSALS_TYPE)).map((r) => [
        r.fields.lastCode,
        r.fields.bodyBytes,
      ]),
    ).toEqual([['PAYLOAD_TOO_LARGE', Buffer.byteLength(big)]]);
    // a chunked upload (no Content-Length) over the limit is cut off as well
    const chunked = await new Promise<number>((resolve, reject) => {
      const req = http.request(
        `${h.host.url}/ingress/acme/stripe`,
        {
          method: 'POST',
          headers: { ...stripePacket(big), 'transfer-encoding': 'chunked' },
          agent: false,
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.write(big.slice(0, 2000));
      req.end(big.slice(2000));
    });
    expect(chunked).toBe(413);
    await h.host.close();
  });
});

describe('graceful close', () => {
  it('stops intake, waits for in-flight work, stops the engine, then closes the store', async () => {
    const clock = new VirtualClock(NOW);
    const world = openWorld({ root: ':memory:', clock });
    const events: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const runner = new InProcessRunner(world).register('slow', async () => {
      events.push('routine started');
      await gate;
      events.push('routine finished');
      return 'done';
    });
    const engine = new TriggerEngine({ world, runner });
    engine.registerRoute({ triggerId: 'stripe.events', routineId: 'slow', buildInput: () => null });
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
    engine.registerSource({ name: 'probe', disconnect: () => void events.push('engine stopped') });
    engine.registerSource(ingress);
    world.onClose(() => void events.push('store closing'));
    await engine.start();
    const host = await startIngressHost({ world, engine, ingress });
    const url = `${host.url}/ingress/acme/stripe`;
    const inflight = post(url, stripePacket(body()), body());
    // In flight once its routine runs (on a loaded machine the request takes a while to arrive).
    while (!events.includes('routine started')) await new Promise((r) => setTimeout(r, 5));
    const closed = host.close().then(() => events.push('closed'));
    await new Promise((r) => setTimeout(r, 20));
    // intake is closed: a new connection is refused
    await expect(post(url, stripePacket(body('evt_late')), body('evt_late'))).rejects.toThrow(
      /ECONNREFUSED|ECONNRESET/,
    );
    expect(world.isClosed).toBe(false);
    release();
    const reply = await inflight;
    expect(reply.status).toBe(200);
    await closed;
    // (the in-flight answer was written before the engine stopped: it arrived, with 200)
    expect(events).toEqual([
      'routine started',
      'routine finished',
      'engine stopped',
      'store closing',
      'closed',
    ]);
    expect(reply.body).toMatchObject({ status: 'triggered', routineResult: 'done' });
    expect(world.isClosed).toBe(true);
    expect(engine.running).toBe(false);
    // close is idempotent
    await host.close();
  });

  it('keeps the world open when asked, and refuses bad options', async () => {
    const h = await ingressHarness();
    const host = await startIngressHost({
      world: h.world,
      engine: h.engine,
      ingress: h.ingress,
      closeWorld: false,
    });
    await host.close();
    expect(h.world.isClosed).toBe(false);
    expect(h.engine.running).toBe(false);
    await expectRefusal(
      () => startIngressHost({ world: h.world, engine: h.engine, ingress: h.ingress, port: 70000 }),
      'INVALID_ARGUMENT',
      'port',
    );
    await expectRefusal(
      () => startIngressHost({ world: h.world, engine: h.engine } as never),
      'INVALID_ARGUMENT',
      'ingress',
    );
    await h.world.close();
  });
});
