// W3C trace context with no OpenTelemetry SDK registered (this file registers none): the
// writer's explicit traceparent and tracestate are captured into the delivery record, and every
// attempt continues the trace as a new hop carrying the tracestate unchanged (issue 18).
import { afterAll, describe, expect, it } from 'vitest';
import { trace } from '@opentelemetry/api';
import { Dispatcher } from '../../src/events/dispatcher.js';
import { captureTrace, continueTrace, withTraceContext } from '../../src/events/trace.js';
import { registerPack } from '../../src/events/pack-registry.js';
import { openWorld } from '../../src/world/world.js';
import { ACME_SECRET, acmePack } from '../support/acme-pack.js';
import { dispatchHarness } from '../support/dispatch-harness.js';
import { startReceiver, type Receiver } from '../support/receiver.js';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT_SPAN = '00f067aa0ba902b7';
const incoming = {
  traceparent: `00-${TRACE_ID}-${PARENT_SPAN}-01`,
  tracestate: 'congo=t61rcWkgMzE,rojo=00f067aa0ba902b7',
};
const HOP = new RegExp(`^00-${TRACE_ID}-([0-9a-f]{16})-01$`);

const receivers: Receiver[] = [];
afterAll(async () => {
  for (const r of receivers) await r.close();
});

describe('trace context without an SDK', () => {
  it('no SDK is registered here: nothing is ever active', () => {
    expect(trace.getActiveSpan()).toBeUndefined();
    expect(captureTrace()).toBeUndefined();
  });

  it('captureTrace returns the explicit context with its tracestate; continueTrace passes the tracestate on as given', () => {
    const captured = withTraceContext(incoming, () => captureTrace());
    expect(captured).toEqual(incoming);
    const hop = continueTrace(captured, () => 'a1b2c3d4e5f60718');
    expect(hop.headers).toEqual({
      traceparent: `00-${TRACE_ID}-a1b2c3d4e5f60718-01`,
      tracestate: incoming.tracestate,
    });
    hop.end(true);
    // no tracestate given: none sent; an invalid traceparent: no trace headers at all
    expect(
      continueTrace({ traceparent: incoming.traceparent }, () => 'a1b2c3d4e5f60718').headers,
    ).toEqual({ traceparent: `00-${TRACE_ID}-a1b2c3d4e5f60718-01` });
    expect(
      withTraceContext({ traceparent: 'not-a-traceparent', tracestate: 'x=y' }, () =>
        captureTrace(),
      ),
    ).toBeUndefined();
    expect(
      continueTrace(
        { traceparent: `00-${'0'.repeat(32)}-${PARENT_SPAN}-01`, tracestate: 'x=y' },
        () => 'a1b2c3d4e5f60718',
      ).headers,
    ).toEqual({});
  });

  it('the record keeps traceparent and tracestate; every attempt, retries included, sends the tracestate with a fresh hop', async () => {
    const statuses = [500, 200];
    const s = await dispatchHarness(() => statuses.shift()!, {
      retry: { delaysMs: [60_000], retryOn: ['failed'] },
    });
    await withTraceContext(incoming, () => s.create('cus_traced'));
    expect((await s.delivery()).fields).toMatchObject({
      traceparent: incoming.traceparent,
      tracestate: incoming.tracestate,
    });
    await s.dispatcher.idle();
    await s.clock.advance(60_000);
    expect(s.received).toHaveLength(2);
    const hops = s.received.map((r) => HOP.exec(r.headers.traceparent ?? '')?.[1]);
    for (const [i, r] of s.received.entries()) {
      expect(r.headers.tracestate, `attempt ${i + 1}`).toBe(incoming.tracestate);
      expect(hops[i], `attempt ${i + 1}`).toBeDefined();
      expect(hops[i]).not.toBe(PARENT_SPAN);
    }
    expect(hops[0]).not.toBe(hops[1]);
    // and the attempt records keep the headers that were sent
    expect(
      (await s.attempts()).map((a) => (a.headers as Record<string, string>).tracestate),
    ).toEqual([incoming.tracestate, incoming.tracestate]);
  });

  it('a write without any context records and sends neither header', async () => {
    const s = await dispatchHarness(() => 200);
    await s.create('cus_plain');
    await s.dispatcher.idle();
    expect((await s.delivery()).fields).toMatchObject({ traceparent: null, tracestate: null });
    expect(Object.keys(s.received[0]!.headers).filter((h) => h.startsWith('trace'))).toEqual([]);
  });

  it('over real HTTP the receiver gets the tracestate byte for byte', async () => {
    const receiver = await startReceiver();
    receivers.push(receiver);
    const world = openWorld({ root: ':memory:' });
    const twin = registerPack(world, acmePack());
    const dispatcher = new Dispatcher(world);
    await world.secrets.set('ep', ACME_SECRET);
    await twin.applyWrite({
      operation: 'endpoint.create',
      subjectType: 'endpoint',
      subjectId: 'ep',
      fields: { url: `${receiver.url}/hooks`, secret_ref: 'ep', events: ['*'], status: 'enabled' },
    });
    await withTraceContext(incoming, () =>
      twin.applyWrite({
        operation: 'customer.create',
        subjectType: 'customer',
        subjectId: 'cus_http',
      }),
    );
    await dispatcher.idle();
    expect(receiver.requests[0]!.headers.tracestate).toBe(incoming.tracestate);
    expect(receiver.requests[0]!.headers.traceparent).toMatch(HOP);
    await world.close();
  });
});
