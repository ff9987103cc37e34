// Real HTTP on loopback: packets verify with the vendor's library at the receiver, keep-alive
// reuses connections, a slow receiver times out as `unknown`, and the writer's W3C trace
// continues into the receiver's request under the real OpenTelemetry SDK.
import { afterAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { registerPack } from '../../src/events/pack-registry.js';
import { openWorld } from '../../src/world/world.js';
import { Dispatcher } from '../../src/events/dispatcher.js';
import { HttpTransport } from '../../src/events/transports/http-transport.js';
import { withTraceContext } from '../../src/events/trace.js';
import { ACME_SECRET, acmePack } from '../support/acme-pack.js';
import { startReceiver, type Receiver } from '../support/receiver.js';

const receivers: Receiver[] = [];
afterAll(async () => {
  for (const r of receivers) await r.close();
});

async function setup(
  answer?: Parameters<typeof startReceiver>[0],
  timeoutMs?: number,
  keepAliveMs?: number,
) {
  const receiver = await startReceiver(answer, keepAliveMs === undefined ? {} : { keepAliveMs });
  receivers.push(receiver);
  const world = openWorld({ root: ':memory:' });
  const pack = acmePack();
  const twin = registerPack(
    world,
    timeoutMs === undefined ? pack : { ...pack, events: { ...pack.events!, timeoutMs } },
  );
  const dispatcher = new Dispatcher(world);
  await world.secrets.set('ep', ACME_SECRET);
  await twin.applyWrite({
    operation: 'endpoint.create',
    subjectType: 'endpoint',
    subjectId: 'ep',
    fields: { url: `${receiver.url}/hooks`, secret_ref: 'ep', events: ['*'], status: 'enabled' },
  });
  return { receiver, world, twin, dispatcher };
}

describe('HTTP delivery', () => {
  it('delivers many packets over reused connections; each verifies with standardwebhooks', async () => {
    // Neither the attempts' timeout (2 s in the pack) nor the receiver's idle close (5 s) is what
    // this test is about: on a loaded machine either could fail an attempt or close a socket
    // between two requests, so both are set far beyond any loopback exchange.
    const s = await setup(undefined, 120_000, 120_000);
    const sockets = new Set<string>();
    const t0 = performance.now();
    for (let i = 0; i < 50; i++)
      await s.twin.applyWrite({
        operation: 'customer.create',
        subjectType: 'customer',
        subjectId: `cus_${i}`,
        fields: { i },
      });
    await s.dispatcher.idle();
    console.log('50 deliveries ms', performance.now() - t0);
    expect(s.receiver.requests).toHaveLength(50);
    for (const req of s.receiver.requests) {
      const payload = new Webhook(ACME_SECRET).verify(
        req.body,
        req.headers as Record<string, string>,
      ) as { type: string };
      expect(payload.type).toBe('customer.created');
      sockets.add(String(req.remotePort));
    }
    // at most `concurrency` (32) connections for 50 requests: the rest reused a kept-alive socket
    expect(sockets.size).toBeLessThanOrEqual(32);
    expect((await s.twin.list('delivery')).every((d) => d.fields.state === 'succeeded')).toBe(true);
    await s.world.close();
  });

  it('a receiver slower than the timeout gives an unknown attempt', async () => {
    const s = await setup(() => new Promise((r) => setTimeout(() => r(200), 800)), 100);
    await s.twin.applyWrite({
      operation: 'customer.create',
      subjectType: 'customer',
      subjectId: 'cus_slow',
    });
    await s.dispatcher.idle();
    expect((await s.twin.list('delivery'))[0]?.fields).toMatchObject({
      state: 'unknown',
      lastOutcome: 'unknown',
    });
    expect((await s.twin.list('delivery_attempt'))[0]?.fields).toMatchObject({ reason: 'timeout' });
    await s.world.close();
  });

  it('a refused connection provably never left: failed with reason not_sent, retryable by policy', async () => {
    const s = await setup();
    await s.twin.applyWrite({
      operation: 'endpoint.update',
      subjectType: 'endpoint',
      subjectId: 'ep',
      fields: { url: 'http://127.0.0.1:9/closed' },
    });
    await s.twin.applyWrite({
      operation: 'customer.create',
      subjectType: 'customer',
      subjectId: 'cus_x',
    });
    await s.dispatcher.idle();
    expect((await s.twin.list('delivery_attempt'))[0]?.fields).toMatchObject({
      state: 'failed',
      reason: 'not_sent',
    });
    await s.world.close();
  });

  it("continues the writer's trace into the receiver's request, with the real OpenTelemetry SDK", async () => {
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({
      spanProcessors: [new SimpleSpanProcessor(exporter)],
    });
    const manager = new AsyncLocalStorageContextManager().enable();
    context.setGlobalContextManager(manager);
    trace.setGlobalTracerProvider(provider);
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    try {
      const s = await setup();
      const tracer = trace.getTracer('test');
      let writerTraceId = '';
      let writerSpanId = '';
      await tracer.startActiveSpan('api.request', async (span) => {
        writerTraceId = span.spanContext().traceId;
        writerSpanId = span.spanContext().spanId;
        await s.twin.applyWrite({
          operation: 'customer.create',
          subjectType: 'customer',
          subjectId: 'cus_traced',
        });
        span.end();
      });
      // the write's answer is long gone when the packet is sent
      await s.dispatcher.idle();
      const received = s.receiver.requests[0]!;
      const extracted = trace.getSpanContext(
        propagation.extract(context.active(), received.headers),
      )!;
      expect(extracted.traceId).toBe(writerTraceId);
      expect(extracted.spanId).not.toBe(writerSpanId);
      // the hop is a real CLIENT span, child of the writer's
      const hop = exporter
        .getFinishedSpans()
        .find((sp) => sp.name === 'twinworld.webhook.deliver')!;
      expect(hop.spanContext().spanId).toBe(extracted.spanId);
      expect(hop.parentSpanContext?.spanId).toBe(writerSpanId);
      await s.world.close();
    } finally {
      trace.disable();
      context.disable();
      propagation.disable();
      await provider.shutdown();
    }
  });

  it('without any SDK, an explicit incoming traceparent is still continued as a child hop', async () => {
    const s = await setup();
    const incoming = {
      traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
      tracestate: 'vendor=abc',
    };
    await withTraceContext(incoming, () =>
      s.twin.applyWrite({
        operation: 'customer.create',
        subjectType: 'customer',
        subjectId: 'cus_t',
      }),
    );
    await s.dispatcher.idle();
    const h = s.receiver.requests[0]!.headers;
    expect(h.traceparent).toMatch(/^00-4bf92f3577b34da6a3ce929d0e0e4736-[0-9a-f]{16}-01$/);
    expect(h.traceparent).not.toContain('00f067aa0ba902b7');
    expect(h.tracestate).toBe('vendor=abc');
    // no context at all: no trace headers, never all-zero ids
    await s.twin.applyWrite({
      operation: 'customer.create',
      subjectType: 'customer',
      subjectId: 'cus_u',
    });
    await s.dispatcher.idle();
    expect(s.receiver.requests[1]!.headers.traceparent).toBeUndefined();
    await s.world.close();
  });

  it('HttpTransport refuses a non-HTTP or invalid URL as not sent', async () => {
    const transport = new HttpTransport();
    for (const url of ['ftp://127.0.0.1/x', 'not a url', 'http://'])
      await expect(
        transport.send({ url, headers: {}, body: '{}', timeoutMs: 100 }),
        url,
      ).rejects.toMatchObject({ kind: 'not_sent' });
    transport.close();
  });
});
