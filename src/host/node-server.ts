// The host on a port: a node:http server on 127.0.0.1 that turns each request into a WHATWG
// Request for the host's fetch handler and writes its Response back. Bodies are capped (1 MiB);
// the host's origin is set to the address it listens on, so answers carry URLs on it.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { checkOptionKeys, describeValue, TwinError } from '../errors.js';
import type { SurfaceHost } from './host.js';
import { listenOn } from './listen-port.js';
import { MAX_BODY_BYTES, readCappedBody } from './request-body.js';

export interface ListenOptions {
  /** 0 (default): a free port. */
  readonly port?: number;
}

export interface Listening {
  readonly url: string;
  readonly port: number;
  readonly server: Server;
  close(): Promise<void>;
}

async function handle(host: SurfaceHost, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const body = await readCappedBody(req);
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  const method = req.method ?? 'GET';
  const request = new Request(`${host.origin}${req.url ?? '/'}`, {
    method,
    headers,
    ...(method === 'GET' || method === 'HEAD' || body === 'too_large' ? {} : { body }),
  });
  // Over the cap the body is not held; the surface it was for still answers in its own envelope.
  const response =
    body === 'too_large' ? host.tooLarge(request, MAX_BODY_BYTES) : await host.fetch(request);
  const out: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    out[name] = value;
  });
  const bytes = Buffer.from(await response.arrayBuffer());
  res.writeHead(response.status, { ...out, 'content-length': String(bytes.length) });
  res.end(bytes);
}

/** Listens on 127.0.0.1; resolves once the port is open. */
export async function listen(host: SurfaceHost, options: ListenOptions = {}): Promise<Listening> {
  if (typeof (host as Partial<SurfaceHost> | null | undefined)?.fetch !== 'function')
    throw new TwinError(
      'INVALID_ARGUMENT',
      `listen(host, options): host must be a host from createHost(...), got ${describeValue(host)}`,
      { path: 'host' },
    );
  checkOptionKeys('listen(host, options)', options, ['port']);
  const port = options.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new TwinError(
      'INVALID_ARGUMENT',
      `port must be an integer 0–65535, got ${String(port)}`,
      { path: 'port' },
    );
  const server = createServer((req, res) => {
    handle(host, req, res).catch((error: unknown) => {
      host.world.reportError(error, 'host request');
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({ error: { code: 'INTERNAL', message: 'the host failed; see its log' } }),
      );
    });
  });
  await listenOn(server, port, '127.0.0.1');
  const actual = (server.address() as AddressInfo).port;
  host.origin = `http://127.0.0.1:${actual}`;
  return {
    url: host.origin,
    port: actual,
    server,
    close: () =>
      new Promise<void>((done) => {
        server.close(() => done());
        server.closeAllConnections();
      }),
  };
}
