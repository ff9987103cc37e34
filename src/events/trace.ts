// Trace continuation: the W3C trace context active when a write is made is captured into its
// delivery records and continued, as a child hop, on every attempt's request — with or without
// an OpenTelemetry SDK registered.
import { AsyncLocalStorage } from 'node:async_hooks';
import { checkCallback, describeValue, TwinError } from '../errors.js';
import {
  ROOT_CONTEXT,
  SpanKind,
  context,
  trace,
  isSpanContextValid,
  type SpanContext,
  TraceFlags,
  createTraceState,
} from '@opentelemetry/api';

export interface TraceCarrier {
  readonly traceparent: string;
  readonly tracestate?: string;
}

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;
const explicit = new AsyncLocalStorage<TraceCarrier>();

/** Parses a traceparent strictly (W3C level 1); undefined when invalid, as the spec says to ignore it. */
function parseTraceparent(carrier: TraceCarrier | undefined): SpanContext | undefined {
  if (carrier === undefined) return undefined;
  const m = TRACEPARENT.exec(carrier.traceparent.trim().toLowerCase());
  if (m === null || m[1] === 'ff' || (m[1] === '00' && m[5] !== undefined)) return undefined;
  const spanContext: SpanContext = {
    traceId: m[2]!,
    spanId: m[3]!,
    traceFlags: parseInt(m[4]!, 16) & 0xff,
    isRemote: true,
    ...(carrier.tracestate ? { traceState: createTraceState(carrier.tracestate) } : {}),
  };
  return isSpanContextValid(spanContext) ? spanContext : undefined;
}

function formatTraceparent(span: SpanContext): string {
  return `00-${span.traceId}-${span.spanId}-${(span.traceFlags & 0xff).toString(16).padStart(2, '0')}`;
}

/**
 * Runs `fn` with an explicit incoming trace context (e.g. the traceparent of the request that
 * caused a write). Needed when no SDK is registered, since then nothing is ever "active".
 */
export function withTraceContext<T>(carrier: TraceCarrier, fn: () => T): T {
  // A carrier without a text traceparent failed later, inside the write that captured it. A text
  // one that is not a valid traceparent is ignored when read, as the W3C specification says.
  const c = carrier as Partial<Record<keyof TraceCarrier, unknown>> | null;
  if (
    typeof c?.traceparent !== 'string' ||
    (c.tracestate !== undefined && typeof c.tracestate !== 'string')
  )
    throw new TwinError(
      'INVALID_ARGUMENT',
      `withTraceContext(carrier, fn): carrier must be {traceparent, tracestate?} with text values, such as the incoming request's headers, got ${describeValue(carrier)}`,
      { path: 'carrier' },
    );
  checkCallback('withTraceContext(carrier, fn)', fn);
  return explicit.run(carrier, fn);
}

/** The caller's trace context right now: the active OpenTelemetry span if any, else an explicit one. */
export function captureTrace(): TraceCarrier | undefined {
  const active = trace.getSpanContext(context.active());
  if (active !== undefined && isSpanContextValid(active)) {
    const state = active.traceState?.serialize();
    return { traceparent: formatTraceparent(active), ...(state ? { tracestate: state } : {}) };
  }
  const carrier = explicit.getStore();
  return parseTraceparent(carrier) === undefined ? undefined : carrier;
}

/**
 * Headers continuing a captured trace as a new hop. With a recording SDK the hop is a real
 * CLIENT span (ended by the caller through `end`); without one, a child span id is drawn from
 * `newSpanId` so the hop is still distinct from the writer's span.
 */
export function continueTrace(
  captured: TraceCarrier | undefined,
  newSpanId: () => string,
): { headers: Record<string, string>; end: (ok: boolean) => void } {
  const parent = parseTraceparent(captured);
  if (parent === undefined) return { headers: {}, end: () => {} };
  const span = trace
    .getTracer('twinworld')
    .startSpan(
      'twinworld.webhook.deliver',
      { kind: SpanKind.CLIENT },
      trace.setSpanContext(ROOT_CONTEXT, parent),
    );
  let hop = span.spanContext();
  if (!span.isRecording() || hop.spanId === parent.spanId) {
    hop = {
      ...parent,
      spanId: newSpanId(),
      isRemote: false,
      traceFlags: parent.traceFlags ?? TraceFlags.NONE,
    };
  }
  const headers: Record<string, string> = { traceparent: formatTraceparent(hop) };
  if (captured?.tracestate) headers.tracestate = captured.tracestate;
  return {
    headers,
    end: (ok) => {
      span.setAttribute('twinworld.delivery.ok', ok);
      span.end();
    },
  };
}
