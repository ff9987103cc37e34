// The ingress host as a library: a node:http server exposing POST /ingress/<tenant>/<provider>
// that hands the raw bytes to the webhook ingress and answers with the answer contract's
// statuses. close() follows the design's order: stop intake, wait for in-flight work, stop the
// engine, close the store. The tenant comes from the endpoint the URL names (its secrets belong
// to that tenant), and every packet is handled under a context for that tenant alone.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { TwinError } from '../../errors.js';
import type { World } from '../../world/world.js';
import type { TriggerEngine } from '../engine.js';
import { tenantContext, type TenantContext } from '../tenant-context.js';
import type { WebhookIngress } from '../webhook/webhook-ingress.js';
import { answerStatus, errorStatus, type HttpAnswer } from './status.js';

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
}

export interface IngressHost {
  readonly port: number;
  /** http://127.0.0.1:<port> */
  readonly url: string;
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
  return errorStatus(new TwinError('UNKNOWN_ENDPOINT', `${what}; webhooks are taken at POST /ingress/<tenant>/<provider>`, { path: 'url' }));
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

/** Reads the body up to `limit` bytes; answers undefined (and stops reading) past it. */
function readBody(req: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on('data', (chunk: Buffer) => {
      if (over) return;
      size += chunk.length;
      if (size > limit) {
        over = true;
        req.pause();
        resolve(undefined);
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (!over) resolve(Buffer.concat(chunks, size));
    });
    req.on('error', reject);
  });
}

export function startIngressHost(options: IngressHostOptions): Promise<IngressHost> {
  if (options === null || typeof options !== 'object') throw new TwinError('INVALID_ARGUMENT', 'startIngressHost({world, engine, ingress, port?, host?}) needs an options object', { path: 'options' });
  const { world, engine, ingress } = options;
  if (world === undefined || engine === undefined || ingress === undefined) {
    throw new TwinError('INVALID_ARGUMENT', 'startIngressHost needs {world, engine, ingress}', { path: world === undefined ? 'world' : engine === undefined ? 'engine' : 'ingress' });
  }
  const port = options.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new TwinError('INVALID_ARGUMENT', `port must be an integer 0–65535 (0 picks a free port), got ${String(port)}`, { path: 'port' });
  const host = options.host ?? '127.0.0.1';
  const scopeFor = options.scopeFor ?? ((tenantId: string) => tenantId);
  const report = options.onError ?? ((error: unknown) => world.reportError(error, 'ingress host'));
  const inflight = new Set<Promise<void>>();
  let closing = false;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const target = route(req.url);
    if (target === undefined) return send(res, notFound(`no such path ${JSON.stringify((req.url ?? '').slice(0, 100))}`));
    if (req.method !== 'POST') {
      res.setHeader('allow', 'POST');
      return send(res, { status: 405, headers: {}, body: { error: 'METHOD_NOT_ALLOWED', message: 'webhooks are POSTed' } });
    }
    const [tenantId, provider] = target;
    const endpoint = ingress.endpointFor(tenantId, provider);
    if (endpoint === undefined) return send(res, notFound(`no webhook endpoint for provider "${provider.slice(0, 64)}" of tenant "${tenantId.slice(0, 128)}"`));
    let context: TenantContext;
    try {
      // A packet acts for the tenant its endpoint serves, and may only ingest there.
      context = tenantContext({ tenantId: endpoint.tenantId ?? tenantId, may: ['ingest'] });
    } catch (error) {
      return send(res, notFound(`no webhook endpoint for tenant "${tenantId.slice(0, 128)}": ${error instanceof TwinError ? error.message : 'unusable tenant id'}`));
    }
    const declared = Number(req.headers['content-length'] ?? 0);
    const body = declared > ingress.maxBodyBytes ? undefined : await readBody(req, ingress.maxBodyBytes);
    if (body === undefined) {
      // Recorded like every refusal (never the body); the rest of the upload is not read, so
      // this connection cannot be reused.
      const error = new TwinError('PAYLOAD_TOO_LARGE', `${provider}: body is over this ingress's ${ingress.maxBodyBytes}-byte limit`, { path: 'body', details: { limit: ingress.maxBodyBytes } });
      await engine.recordRefusal({ tenantId, scopeId: scopeFor(tenantId), sourceKind: 'webhook', provider, triggerId: endpoint.triggerId, bodyBytes: Number.isFinite(declared) && declared > 0 ? declared : null, error }, context).catch(report);
      return send(res, errorStatus(error), true);
    }
    let answer: HttpAnswer;
    try {
      answer = answerStatus(await ingress.handle({ tenantId, scopeId: scopeFor(tenantId), provider, headers: req.headers, rawBody: body }, context));
    } catch (error) {
      answer = errorStatus(error);
      if (answer.status === 500 && !(error instanceof TwinError && error.code === 'ROUTINE_FAILED')) report(error);
    }
    send(res, answer, closing);
  }

  const server = createServer((req, res) => {
    if (closing) {
      // Intake has stopped: refuse at once, retryably, and let the connection go.
      send(res, errorStatus(new TwinError('ENGINE_STOPPED', 'the ingress host is shutting down; retry later')), true);
      req.resume();
      return;
    }
    const work = handle(req, res).catch((error: unknown) => {
      report(error);
      if (!res.headersSent) send(res, errorStatus(error), true);
      else res.destroy();
    });
    inflight.add(work);
    void work.finally(() => inflight.delete(work));
  });

  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const bound = (server.address() as AddressInfo).port;
      let closed: Promise<void> | undefined;
      resolve({
        port: bound,
        url: `http://${host.includes(':') ? `[${host}]` : host}:${bound}`,
        close: () =>
          (closed ??= (async () => {
            closing = true;
            const stopped = new Promise<void>((done) => server.close(() => done()));
            server.closeIdleConnections();
            while (inflight.size > 0) await Promise.allSettled([...inflight]);
            await engine.stop();
            if (options.closeWorld ?? true) await world.close();
            server.closeAllConnections();
            await stopped;
          })()),
      });
    });
  });
}
