// The ingress host as a library: a node:http server exposing POST /ingress/<tenant>/<provider>
// that hands the raw bytes to the webhook ingress and answers with the answer contract's
// statuses (202 + Location for a deferred dispatch, read back at GET /dispatches/<id>?key=<capability>). It is bounded (connections.ts): a connection cap that evicts the oldest idle
// connection first, deadlines in seconds for headers, bodies and keep-alive, a 413 the client
// actually receives, and silence about clients that hang up. close() follows the design's order:
// stop intake, wait for in-flight work, stop the engine, close the store. The tenant comes from
// the endpoint the URL names (its secrets belong to that tenant), and every packet is handled
// under a context for that tenant alone.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConnectionGuard, DEFAULT_LIMITS, checkLimits, type IngressLimits } from './connections.js';
import { TwinError } from '../../errors.js';
import type { World } from '../../world/world.js';
import type { TriggerEngine } from '../../triggers/engine/engine.js';
import { tenantContext, type TenantContext } from '../../triggers/tenant-context.js';
import type { WebhookIngress } from '../../triggers/webhook/webhook-ingress.js';
import { answerStatus, errorStatus, type HttpAnswer } from './status.js';
import { listenOn } from '../listen-port.js';
import { DispatchCapabilities } from './dispatch-capability.js';
import { answerDispatch, dispatchPath } from './dispatch-route.js';

export interface IngressHostOptions {
  readonly world: World;
  readonly engine: TriggerEngine;
  readonly ingress: WebhookIngress;
  /** 0 (default) picks a free port. */
  readonly port?: number;
  /** Default 127.0.0.1: the host is not meant to face the internet unproxied. */
  readonly host?: string;
  /** The scope a tenant's packets belong to; default the tenant id. */
  readonly scopeFor?: (tenantId: string) => string;
  /** close() closes the world too (default true), as the last step of a graceful stop. */
  readonly closeWorld?: boolean;
  /** Where unexpected errors are reported; default world.reportError. */
  readonly onError?: (error: unknown) => void;
  /** Connection cap and deadlines; see IngressLimits for the defaults. */
  readonly limits?: Partial<IngressLimits>;
}

export interface IngressHost {
  readonly port: number;
  /** http://127.0.0.1:<port> */
  readonly url: string;
  readonly limits: IngressLimits;
  /** Open connections now, and how many were evicted or refused at the cap so far. */
  connections(): { open: number; evicted: number; refused: number; timedOut: number };
  close(): Promise<void>;
}

const PREFIX = '/ingress/';

function send(res: ServerResponse, answer: HttpAnswer, closeConnection = false): void {
  const body = JSON.stringify(answer.body);
  res.writeHead(answer.status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    ...answer.headers,
    ...(closeConnection ? { connection: 'close' } : {}),
  });
  res.end(body);
}

function notFound(what: string): HttpAnswer {
  return errorStatus(
    new TwinError(
      'UNKNOWN_ENDPOINT',
      `${what}; webhooks are taken at POST /ingress/<tenant>/<provider>`,
      { path: 'url' },
    ),
  );
}

/** "/ingress/acme/stripe" → ["acme", "stripe"]; anything else → undefined. */
function route(url: string | undefined): [string, string] | undefined {
  if (url === undefined || !url.startsWith(PREFIX)) return undefined;
  const path = url.split('?')[0]!.slice(PREFIX.length);
  const parts = path.split('/');
  if (parts.length !== 2 || parts[0] === '' || parts[1] === '') return undefined;
  try {
    return [decodeURIComponent(parts[0]!), decodeURIComponent(parts[1]!)];
  } catch {
    return undefined;
  }
}

type Body = { kind: 'body'; bytes: Buffer } | { kind: 'too_large' } | { kind: 'aborted' };

/** Reads the body up to `limit` bytes; past it, stops collecting (the caller answers 413). */
function readBody(req: IncomingMessage, limit: number): Promise<Body> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (body: Body): void => {
      if (settled) return;
      settled = true;
      req.off('data', onData);
      resolve(body);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limit) settle({ kind: 'too_large' });
      else chunks.push(chunk);
    };
    req.on('data', onData);
    req.on('end', () => settle({ kind: 'body', bytes: Buffer.concat(chunks, size) }));
    // A client that hangs up mid-upload is not an error of ours: nothing to answer, nothing to log.
    req.on('error', () => settle({ kind: 'aborted' }));
    req.on('close', () => {
      if (!req.complete) settle({ kind: 'aborted' });
    });
  });
}

/**
 * Answers 413 and keeps reading (and discarding) the rest of the upload before closing, so the
 * client is still reading when the answer arrives: closing on unread bytes would reset the
 * connection and take the answer with it. Bounded in time and bytes; past either, it hangs up.
 */
function refuseUpload(
  req: IncomingMessage,
  res: ServerResponse,
  answer: HttpAnswer,
  limits: IngressLimits,
): void {
  const text = JSON.stringify(answer.body);
  res.writeHead(answer.status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    ...answer.headers,
    connection: 'close',
  });
  res.write(text);
  if (req.complete) {
    res.end();
    return;
  }
  let discarded = 0;
  const done = (): void => {
    clearTimeout(timer);
    res.end();
  };
  const timer = setTimeout(() => {
    done();
    req.socket.destroy();
  }, limits.lingerSec * 1000);
  timer.unref();
  req.on('data', (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > limits.lingerBytes) {
      done();
      req.socket.destroy();
    }
  });
  req.once('end', done);
  req.once('error', done);
  req.resume();
}

export function startIngressHost(options: IngressHostOptions): Promise<IngressHost> {
  if (options === null || typeof options !== 'object')
    throw new TwinError(
      'INVALID_ARGUMENT',
      'startIngressHost({world, engine, ingress, port?, host?}) needs an options object',
      { path: 'options' },
    );
  const { world, engine, ingress } = options;
  if (world === undefined || engine === undefined || ingress === undefined) {
    throw new TwinError('INVALID_ARGUMENT', 'startIngressHost needs {world, engine, ingress}', {
      path: world === undefined ? 'world' : engine === undefined ? 'engine' : 'ingress',
    });
  }
  const port = options.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new TwinError(
      'INVALID_ARGUMENT',
      `port must be an integer 0–65535 (0 picks a free port), got ${String(port)}`,
      { path: 'port' },
    );
  const host = options.host ?? '127.0.0.1';
  const scopeFor = options.scopeFor ?? ((tenantId: string) => tenantId);
  const report = options.onError ?? ((error: unknown) => world.reportError(error, 'ingress host'));
  const limits = checkLimits({ ...DEFAULT_LIMITS, ...(options.limits ?? {}) });
  const inflight = new Set<Promise<void>>();
  const capabilities = new DispatchCapabilities(world);
  let closing = false;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const dispatch = dispatchPath(req.url);
    if (dispatch !== undefined)
      return send(res, await answerDispatch(engine.twin, capabilities, req.method, dispatch));
    const target = route(req.url);
    if (target === undefined)
      return send(res, notFound(`no such path ${JSON.stringify((req.url ?? '').slice(0, 100))}`));
    if (req.method !== 'POST') {
      res.setHeader('allow', 'POST');
      return send(res, {
        status: 405,
        headers: {},
        body: { error: 'METHOD_NOT_ALLOWED', message: 'webhooks are POSTed' },
      });
    }
    const [tenantId, provider] = target;
    const endpoint = ingress.endpointFor(tenantId, provider);
    if (endpoint === undefined)
      return send(
        res,
        notFound(
          `no webhook endpoint for provider "${provider.slice(0, 64)}" of tenant "${tenantId.slice(0, 128)}"`,
        ),
      );
    let context: TenantContext;
    try {
      // A packet acts for the tenant its endpoint serves, and may only ingest there.
      context = tenantContext({ tenantId: endpoint.tenantId ?? tenantId, may: ['ingest'] });
    } catch (error) {
      return send(
        res,
        notFound(
          `no webhook endpoint for tenant "${tenantId.slice(0, 128)}": ${error instanceof TwinError ? error.message : 'unusable tenant id'}`,
        ),
      );
    }
    const declared = Number(req.headers['content-length'] ?? 0);
    const body: Body =
      declared > ingress.maxBodyBytes
        ? { kind: 'too_large' }
        : await readBody(req, ingress.maxBodyBytes);
    if (body.kind === 'aborted') return;
    if (body.kind === 'too_large') {
      // Counted like every refusal (never the body).
      const error = new TwinError(
        'PAYLOAD_TOO_LARGE',
        `${provider}: body is over this ingress's ${ingress.maxBodyBytes}-byte limit`,
        { path: 'body', details: { limit: ingress.maxBodyBytes } },
      );
      refuseUpload(req, res, errorStatus(error), limits);
      await engine
        .recordRefusal(
          {
            tenantId,
            scopeId: scopeFor(tenantId),
            sourceKind: 'webhook',
            provider,
            triggerId: endpoint.triggerId,
            bodyBytes: Number.isFinite(declared) && declared > 0 ? declared : null,
            error,
          },
          context,
        )
        .catch(report);
      return;
    }
    let answer: HttpAnswer;
    try {
      const ingested = await ingress.answer(
        {
          tenantId,
          scopeId: scopeFor(tenantId),
          provider,
          headers: req.headers,
          rawBody: body.bytes,
        },
        context,
      );
      answer = answerStatus(
        ingested,
        ingested.status === 'deferred'
          ? await capabilities.location(ingested.dispatchId)
          : undefined,
      );
    } catch (error) {
      answer = errorStatus(error);
      if (answer.status === 500 && !(error instanceof TwinError && error.code === 'ROUTINE_FAILED'))
        report(error);
    }
    send(res, answer, closing);
  }

  const guard = new ConnectionGuard(limits);
  // Node's own timeouts answer 408 to headers or a body that trickle; the guard keeps the count
  // (the cap) and the same deadlines on it, checked once a second.
  const server = createServer(
    {
      requestTimeout: (limits.headersTimeoutSec + limits.bodyTimeoutSec) * 1000,
      headersTimeout: limits.headersTimeoutSec * 1000,
      connectionsCheckingInterval: 1000,
    },
    (req, res) => {
      guard.requestStarted(req, res);
      if (closing) {
        // Intake has stopped: refuse at once, retryably, and let the connection go.
        send(
          res,
          errorStatus(
            new TwinError('ENGINE_STOPPED', 'the ingress host is shutting down; retry later'),
          ),
          true,
        );
        req.resume();
        return;
      }
      const work = handle(req, res).catch((error: unknown) => {
        if (req.destroyed && !req.complete) return; // the client left; nothing to answer
        report(error);
        if (!res.headersSent) send(res, errorStatus(error), true);
        else res.destroy();
      });
      inflight.add(work);
      void work.finally(() => inflight.delete(work));
    },
  );

  server.keepAliveTimeout = limits.keepAliveTimeoutSec * 1000;
  server.on('connection', (socket) => guard.accept(socket));
  // Malformed requests and timeouts: answer if the socket still can, never log a stack.
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    const status =
      error.code === 'HPE_HEADER_OVERFLOW'
        ? 431
        : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? 408
          : 400;
    if (socket.writable && error.code !== 'ECONNRESET')
      socket.end(
        `HTTP/1.1 ${status} ${status === 408 ? 'Request Timeout' : status === 431 ? 'Request Header Fields Too Large' : 'Bad Request'}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`,
      );
    socket.destroy();
  });

  return listenOn(server, port, host).then(() => {
    const bound = (server.address() as AddressInfo).port;
    guard.start();
    let closed: Promise<void> | undefined;
    return {
      port: bound,
      url: `http://${host.includes(':') ? `[${host}]` : host}:${bound}`,
      limits,
      connections: () => guard.stats(),
      close: () =>
        (closed ??= (async () => {
          closing = true;
          const stopped = new Promise<void>((done) => server.close(() => done()));
          server.closeIdleConnections();
          guard.closeIdle();
          while (inflight.size > 0) await Promise.allSettled([...inflight]);
          await engine.stop();
          if (options.closeWorld ?? true) await world.close();
          server.closeAllConnections();
          guard.stop();
          await stopped;
        })()),
    };
  });
}
