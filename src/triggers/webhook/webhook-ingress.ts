// The webhook ingress source: verifies a vendor's packet against its raw bytes and a timestamp
// window on the world clock, then ingests it with the vendor's delivery id as dedupe key.
// Refused packets are recorded without their body; secrets are resolved per call, never stored.
import { withTraceContext } from '../../events/trace.js';
import { didYouMean } from '../../did-you-mean.js';
import { checkOptionKeys, describeValue, TwinError } from '../../errors.js';
import {
  getScheme,
  DEFAULT_TOLERANCE_SEC,
  type SchemeName,
  type VerifiedPacket,
} from '../../events/signing/index.js';
import { headerValues } from '../../events/signing/scheme.js';
import { assertJson, type JsonValue } from '../../log/json-value.js';
import { isoAt } from '../../world/clock.js';
import type { IngestAnswer, WebhookAnswer } from '../answer.js';
import type { SourceHost } from '../source.js';
import {
  checkProvider,
  checkScopeId,
  checkTenantId,
  checkTriggerId,
  createTriggerEnvelope,
  MAX_PAYLOAD_DEPTH,
} from '../envelope.js';
import type { TriggerSource } from '../source.js';
import { authorize, contextArgument, type TriggerContext } from '../tenant-context.js';
import { deliveryIdentity, type DeliveryIdentity } from './delivery-id.js';
import { endpointScheme } from './scheme-key.js';

/** Default largest raw body accepted (vendors' payloads are far smaller). */
export const DEFAULT_MAX_BODY_BYTES = 256 * 1024;
/** The body is kept as payload.body: one level below the payload's own limit. */
const MAX_BODY_DEPTH = MAX_PAYLOAD_DEPTH - 1;

interface EndpointSettings {
  /** The tenant this endpoint serves; omit to serve every tenant. */
  readonly tenantId?: string;
  /** Path segment and source.provider, e.g. "stripe". */
  readonly provider: string;
  readonly triggerId: string;
  /**
   * Current secrets (several while one rotates). Called per packet with the context the packet
   * is handled under; the answer is never stored.
   */
  readonly resolveSecrets: (
    tenantId: string,
    scopeId: string,
    context: TriggerContext,
  ) => readonly string[] | Promise<readonly string[]>;
  /** Allowed clock distance of a signed timestamp, both ways; default 300 s. */
  readonly toleranceSec?: number;
  /**
   * For schemes that sign neither an id nor a time (GitHub): how long a body is remembered, so
   * the same signed body under a new delivery id is answered `duplicate`. Default 7 days.
   */
  readonly replayWindowSec?: number;
}

/** An endpoint names its signature scheme as `scheme` or, as the trigger guide does, `signatureScheme`. */
export type WebhookEndpoint = EndpointSettings &
  (
    | { readonly scheme: SchemeName; readonly signatureScheme?: SchemeName }
    | { readonly signatureScheme: SchemeName; readonly scheme?: SchemeName }
  );

/** An endpoint as the ingress keeps it: its scheme resolved from either key. */
export type ConfiguredEndpoint = EndpointSettings & { readonly scheme: SchemeName };

export interface WebhookRequest {
  readonly tenantId: string;
  /** Decided by the host's authentication, never by the packet. */
  readonly scopeId: string;
  readonly provider: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** The bytes exactly as received: a parsed and re-serialized body would not verify. */
  readonly rawBody: string | Uint8Array;
}

export interface WebhookIngressOptions {
  readonly endpoints?: readonly WebhookEndpoint[];
  readonly maxBodyBytes?: number;
  readonly name?: string;
}

const REFUSED = new Set([
  'MISSING_HEADER',
  'BAD_SIGNATURE',
  'STALE_TIMESTAMP',
  'INVALID_BODY',
  'INVALID_ENVELOPE',
  'PAYLOAD_TOO_LARGE',
]);

/** A request field that is no text: what a caller slipped on, never what an HTTP path yields. */
function notText(path: 'tenantId' | 'provider', what: string, value: unknown): never {
  throw new TwinError(
    'INVALID_ARGUMENT',
    `handle(request): request.${path} must be a string, ${what}; got ${describeValue(value)}`,
    { path },
  );
}

const ENDPOINT_KEYS: readonly string[] = [
  'tenantId',
  'provider',
  'triggerId',
  'scheme',
  'signatureScheme',
  'resolveSecrets',
  'toleranceSec',
  'replayWindowSec',
];

export class WebhookIngress implements TriggerSource {
  readonly name: string;
  readonly maxBodyBytes: number;
  private readonly endpoints = new Map<string, ConfiguredEndpoint>();
  private engine: SourceHost | undefined;

  constructor(options: WebhookIngressOptions = {}) {
    checkOptionKeys('new WebhookIngress(options)', options, ['endpoints', 'maxBodyBytes', 'name']);
    if (options.name !== undefined && (typeof options.name !== 'string' || options.name === ''))
      throw new TwinError(
        'INVALID_ARGUMENT',
        `new WebhookIngress(options): name must be a non-empty string, got ${describeValue(options.name)}`,
        { path: 'options.name' },
      );
    this.name = options.name ?? 'webhook';
    const max = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
    if (!Number.isSafeInteger(max) || max < 1)
      throw new TwinError('INVALID_ARGUMENT', 'maxBodyBytes must be a positive integer', {
        path: 'maxBodyBytes',
      });
    this.maxBodyBytes = max;
    (options.endpoints ?? []).forEach((e, i) => this.addEndpoint(e, `endpoints[${i}]`));
  }

  addEndpoint(endpoint: WebhookEndpoint, path = 'endpoint'): this {
    if (endpoint === null || typeof endpoint !== 'object')
      throw new TwinError(
        'INVALID_CONFIG',
        `${path} must be an object {provider, triggerId, scheme, resolveSecrets}`,
        { path },
      );
    // A misspelt {tolerenceSec} or {replayWindow} was dropped: the endpoint took the default.
    for (const key of Object.keys(endpoint))
      if (!ENDPOINT_KEYS.includes(key))
        throw new TwinError(
          'INVALID_CONFIG',
          `${path}: unknown key "${key}"${didYouMean(key, ENDPOINT_KEYS)}; an endpoint takes ${ENDPOINT_KEYS.join(', ')}`,
          { path: `${path}.${key}` },
        );
    if (endpoint.tenantId !== undefined)
      checkTenantId(endpoint.tenantId, `${path}.tenantId`, 'INVALID_CONFIG');
    checkProvider(endpoint.provider, `${path}.provider`, 'INVALID_CONFIG');
    checkTriggerId(endpoint.triggerId, `${path}.triggerId`, 'INVALID_CONFIG');
    const scheme = endpointScheme(endpoint, path);
    if (typeof endpoint.resolveSecrets !== 'function') {
      throw new TwinError(
        'INVALID_CONFIG',
        `${path}.resolveSecrets must be a function (tenantId, scopeId) => secrets`,
        { path: `${path}.resolveSecrets` },
      );
    }
    const tol = endpoint.toleranceSec;
    if (tol !== undefined && (typeof tol !== 'number' || !Number.isFinite(tol) || tol < 0)) {
      throw new TwinError(
        'INVALID_CONFIG',
        `${path}.toleranceSec must be a non-negative number of seconds`,
        { path: `${path}.toleranceSec` },
      );
    }
    const win = endpoint.replayWindowSec;
    if (win !== undefined && (typeof win !== 'number' || !Number.isSafeInteger(win) || win < 1)) {
      throw new TwinError(
        'INVALID_CONFIG',
        `${path}.replayWindowSec must be a positive integer number of seconds`,
        { path: `${path}.replayWindowSec` },
      );
    }
    const key = endpointKey(endpoint.tenantId, endpoint.provider);
    if (this.endpoints.has(key)) {
      throw new TwinError(
        'INVALID_CONFIG',
        `${path}: provider "${endpoint.provider}" already has an endpoint${endpoint.tenantId === undefined ? '' : ` for tenant "${endpoint.tenantId}"`}`,
        { path: `${path}.provider` },
      );
    }
    this.endpoints.set(key, { ...endpoint, scheme });
    return this;
  }

  /** The tenant's own endpoint for a provider, else the one serving every tenant. */
  endpointFor(tenantId: string, provider: string): ConfiguredEndpoint | undefined {
    return (
      this.endpoints.get(endpointKey(tenantId, provider)) ??
      this.endpoints.get(endpointKey(undefined, provider))
    );
  }

  connect(engine: SourceHost): void {
    this.engine = engine;
  }

  disconnect(): void {
    this.engine = undefined;
  }

  /**
   * Verifies and ingests one packet. Refusals throw a TwinError and are recorded (without the
   * body): MISSING_HEADER, BAD_SIGNATURE, STALE_TIMESTAMP, INVALID_BODY, INVALID_ENVELOPE,
   * PAYLOAD_TOO_LARGE. UNKNOWN_ENDPOINT (no such tenant/provider) is refused but not recorded:
   * there is no tenant to record it for. Otherwise answers what engine.ingest answers.
   *
   * `context` is the authority the host acts under: a tenant context must be for the request's
   * tenant and allow `ingest` (else TENANT_FORBIDDEN, not recorded); it is handed to
   * resolveSecrets and to the ingest. Without one the call acts as host code (SYSTEM_CONTEXT).
   */
  /**
   * Verifies and ingests one packet. A handshake (Slack's `url_verification`) is refused here,
   * `INVALID_BODY`: what answers it is `answer`, which the ingress host serves.
   */
  handle(request: WebhookRequest, context?: TriggerContext): Promise<IngestAnswer> {
    return this.take(request, context, false) as Promise<IngestAnswer>;
  }

  /**
   * `handle`, and a verified handshake answered instead of refused: Slack's `url_verification`
   * gets its challenge back (nothing ingested, nothing recorded), which is what makes Slack take a
   * Request URL. What an HTTP front of the ingress calls.
   */
  answer(request: WebhookRequest, context?: TriggerContext): Promise<WebhookAnswer> {
    return this.take(request, context, true);
  }

  private async take(
    request: WebhookRequest,
    context: TriggerContext | undefined,
    handshakes: boolean,
  ): Promise<WebhookAnswer> {
    const acting = contextArgument(context);
    const engine = this.engine;
    if (engine === undefined || !engine.running) {
      throw new TwinError(
        'ENGINE_STOPPED',
        'webhook ingress: register this source with engine.registerSource() and start the engine first',
      );
    }
    if (request === null || typeof request !== 'object')
      throw new TwinError(
        'INVALID_ARGUMENT',
        'handle({tenantId, scopeId, provider, headers, rawBody}) needs a request object',
        { path: 'request' },
      );
    const { tenantId, provider } = request;
    // Not text (no HTTP path yields that: a caller's slip) was UNKNOWN_ENDPOINT for provider
    // "undefined"; text that names no endpoint stays UNKNOWN_ENDPOINT, whatever its shape.
    if (typeof tenantId !== 'string')
      notText('tenantId', 'the tenant it was sent to, e.g. "acme"', tenantId);
    if (typeof provider !== 'string')
      notText('provider', 'its ingress path segment, e.g. "stripe"', provider);
    const endpoint = this.endpointFor(tenantId, provider);
    if (endpoint === undefined) {
      throw new TwinError(
        'UNKNOWN_ENDPOINT',
        `no webhook endpoint for provider ${JSON.stringify(String(provider).slice(0, 64))} of tenant ${JSON.stringify(String(tenantId).slice(0, 128))}`,
        { path: 'provider' },
      );
    }
    checkTenantId(tenantId, 'tenantId', 'INVALID_ARGUMENT');
    // Signature verification is no tenant authorization: the context must allow this tenant.
    authorize(acting, tenantId, 'ingest', 'take webhooks');
    const scopeId = checkScopeId(request.scopeId, 'scopeId', 'INVALID_ARGUMENT');
    if (request.headers === null || typeof request.headers !== 'object')
      throw new TwinError('INVALID_ARGUMENT', 'headers must be an object of header name to value', {
        path: 'headers',
      });
    const raw = toBuffer(request.rawBody);
    const refuse = async (error: TwinError): Promise<never> => {
      await engine.recordRefusal(
        {
          tenantId,
          scopeId,
          sourceKind: 'webhook',
          provider,
          triggerId: endpoint.triggerId,
          bodyBytes: raw.length,
          error,
        },
        acting,
      );
      throw error;
    };
    if (raw.length > this.maxBodyBytes) {
      return refuse(
        new TwinError(
          'PAYLOAD_TOO_LARGE',
          `${provider}: body is ${raw.length} bytes, over this ingress's ${this.maxBodyBytes}-byte limit`,
          { path: 'body', details: { bytes: raw.length, limit: this.maxBodyBytes } },
        ),
      );
    }
    const secrets = await resolve(endpoint, tenantId, scopeId, acting);
    const toleranceSec = endpoint.toleranceSec ?? DEFAULT_TOLERANCE_SEC;
    let verified: VerifiedPacket;
    try {
      verified = getScheme(endpoint.scheme).verify({
        headers: request.headers,
        rawBody: raw,
        secrets,
        nowSec: Math.floor(engine.world.clock.now() / 1000),
        toleranceSec,
      });
    } catch (error) {
      if (error instanceof TwinError && REFUSED.has(error.code)) return refuse(error);
      if (error instanceof TwinError && error.code === 'INVALID_ARGUMENT') {
        // A malformed configured secret: the server's fault, not the packet's.
        throw new TwinError(
          'INVALID_CONFIG',
          `endpoint ${provider} of tenant ${tenantId}: ${error.message}`,
          { path: 'resolveSecrets' },
        );
      }
      throw error;
    }
    let envelope;
    let replay: DeliveryIdentity['replay'];
    try {
      const body = parseJson(raw, provider, endpoint.scheme);
      // Checked like every callback (signature and timestamp, above), then echoed, not ingested.
      const challenge = endpoint.scheme === 'slack' ? slackChallenge(body) : undefined;
      if (challenge !== undefined && handshakes) return { status: 'challenge', challenge };
      if (challenge !== undefined)
        throw new TwinError(
          'INVALID_BODY',
          'slack: url_verification (Slack checking a Request URL) is a handshake, not an event: WebhookIngress.answer() echoes its challenge (the ingress host does), handle() ingests Events API callbacks only',
          { path: 'body.type' },
        );
      const id = deliveryIdentity(endpoint.scheme, request.headers, body, raw, verified, {
        toleranceSec,
        ...(endpoint.replayWindowSec === undefined
          ? {}
          : { replayWindowSec: endpoint.replayWindowSec }),
      });
      replay = id.replay;
      const now = engine.world.clock.now();
      envelope = createTriggerEnvelope({
        tenantId,
        scopeId,
        source: { kind: 'webhook', provider },
        triggerId: endpoint.triggerId,
        eventId: id.deliveryId,
        // Prefixed by provider: two vendors' id spaces never collide into one key.
        dedupeKey: `${provider}:${id.deliveryId}`,
        occurredAt: isoAt(id.occurredAtSec === null ? now : id.occurredAtSec * 1000),
        scheduledAt: isoAt(now),
        payload: { eventType: id.eventType, body },
      });
    } catch (error) {
      if (error instanceof TwinError && REFUSED.has(error.code)) return refuse(error);
      throw error;
    }
    // Conflicts and unknown triggers are recorded by the engine itself. The sender's trace goes
    // on into the routine, so what the routine writes (and the webhooks that sends) continues it.
    const options =
      replay === undefined
        ? {}
        : { replayGuard: { key: `${provider}:${replay.key}`, windowMs: replay.windowSec * 1000 } };
    const traceparent = headerValue(request.headers, 'traceparent');
    if (traceparent === undefined) return engine.ingest(envelope, acting, options);
    const tracestate = headerValue(request.headers, 'tracestate');
    return withTraceContext(
      { traceparent, ...(tracestate === undefined ? {} : { tracestate }) },
      () => engine.ingest(envelope, acting, options),
    );
  }
}

/**
 * The challenge of Slack's `url_verification` body, or undefined for any other body; one without a
 * usable challenge is refused, naming the field.
 */
function slackChallenge(body: JsonValue): string | undefined {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return undefined;
  if (body.type !== 'url_verification') return undefined;
  const challenge = body.challenge;
  if (typeof challenge !== 'string' || challenge === '' || challenge.length > MAX_CHALLENGE)
    throw new TwinError(
      'INVALID_BODY',
      `slack: a url_verification body needs its challenge as a string of 1 to ${MAX_CHALLENGE} characters; got ${typeof challenge === 'string' ? `${challenge.length} characters` : JSON.stringify(challenge ?? null).slice(0, 40)}`,
      { path: 'body.challenge' },
    );
  return challenge;
}

/** Slack's challenges are about 50 characters; an echo is bounded all the same. */
const MAX_CHALLENGE = 1024;

/** A header's values joined as one field (RFC 9110 §5.3), whatever its casing; undefined when absent. */
function headerValue(headers: WebhookRequest['headers'], name: string): string | undefined {
  const values = headerValues(headers, name);
  return values.length === 0 ? undefined : values.join(',');
}

function endpointKey(tenantId: string | undefined, provider: string): string {
  return `${tenantId ?? '*'}\u0000${provider}`;
}

function toBuffer(raw: unknown): Buffer {
  if (typeof raw === 'string') return Buffer.from(raw, 'utf8');
  if (raw instanceof Uint8Array) return Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
  throw new TwinError(
    'INVALID_ARGUMENT',
    'rawBody must be the received bytes (Buffer, Uint8Array or string); a parsed body cannot be verified',
    { path: 'rawBody' },
  );
}

async function resolve(
  endpoint: ConfiguredEndpoint,
  tenantId: string,
  scopeId: string,
  context: TriggerContext,
): Promise<readonly string[]> {
  const secrets: unknown = await endpoint.resolveSecrets(tenantId, scopeId, context);
  if (
    !Array.isArray(secrets) ||
    secrets.length === 0 ||
    !secrets.every((s) => typeof s === 'string' && s.trim() !== '')
  ) {
    // Never echo what came back: it may be a secret in the wrong shape.
    throw new TwinError(
      'INVALID_CONFIG',
      `resolveSecrets for provider "${endpoint.provider}" of tenant "${tenantId}" must answer a non-empty array of non-empty strings`,
      { path: 'resolveSecrets' },
    );
  }
  return secrets as readonly string[];
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

// Slack posts interactivity payloads (`payload=…`) and slash commands form-encoded.
const FORM_ENCODED = /^[A-Za-z0-9_.%-]+=[^\s]*$/;

function parseJson(raw: Buffer, provider: string, scheme: SchemeName): JsonValue {
  let text: string;
  try {
    text = utf8.decode(raw);
  } catch {
    throw new TwinError(
      'INVALID_BODY',
      `${provider}: the body is not valid UTF-8; webhook bodies must be JSON`,
      { path: 'body' },
    );
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    // The parser's message quotes the body: never put it in an error that is recorded.
    if (scheme === 'slack' && FORM_ENCODED.test(text))
      throw new TwinError(
        'INVALID_BODY',
        `${provider}: the body is form-encoded (${raw.length} bytes), as Slack posts interactivity payloads and slash commands; this ingress takes Slack's Events API callbacks only (JSON with an event_id), so point the app's Interactivity and slash command URLs elsewhere`,
        { path: 'body' },
      );
    throw new TwinError(
      'INVALID_BODY',
      `${provider}: the body is not JSON (${raw.length} bytes); this ingress takes JSON webhook bodies only`,
      { path: 'body' },
    );
  }
  // Signed is not the same as sane: a body nested past the limit, holding a lone surrogate
  // escape, a number that overflows to Infinity or a __proto__ key is refused before it is stored.
  assertJson(body, 'body', { code: 'INVALID_BODY', maxDepth: MAX_BODY_DEPTH });
  return body;
}
