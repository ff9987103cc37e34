// Serves a WHATWG fetch handler `(Request) => Promise<Response>` over node:http on 127.0.0.1: the
// one adapter between the host's handlers (the console, the vendor surfaces) and a real port.
// Streams response bodies as they come (server-sent events) and aborts the request's signal when
// the client goes away.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { listenOn } from './listen-port.js';
import { MAX_BODY_BYTES, readCappedBody, refuseTooLarge } from './request-body.js';

export type FetchHandler = (request: Request) => Promise<Response>;

export interface NodeHost {
  readonly server: Server;
  readonly port: number;
  /** http://127.0.0.1:PORT */
  readonly origin: string;
  close(): Promise<void>;
}

async function toRequest(
  req: IncomingMessage,
  origin: string,
  signal: AbortSignal,
): Promise<Request | 'too_large'> {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  const method = req.method ?? 'GET';
  let body: Buffer | undefined;
  if (method !== 'GET' && method !== 'HEAD') {
    const read = await readCappedBody(req);
    if (read === 'too_large') return read;
    body = read;
  }
  return new Request(new URL(req.url ?? '/', origin), {
    method,
    headers,
    signal,
    ...(body === undefined ? {} : { body }),
  });
}

async function writeResponse(res: ServerResponse, response: Response): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    if (name === 'set-cookie') return;
    headers[name] = value;
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) headers['set-cookie'] = cookies;
  res.writeHead(response.status, headers);
  if (response.body === null) {
    res.end();
    return;
  }
  const reader = response.body.getReader();
  res.on('close', () => void reader.cancel().catch(() => {}));
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (!res.write(value)) await new Promise((resolve) => res.once('drain', resolve));
  }
  res.end();
}

/** Listens on 127.0.0.1 only (port 0 picks a free one). */
export async function serveFetch(
  handler: FetchHandler,
  options: { port?: number; onError?: (error: unknown) => void } = {},
): Promise<NodeHost> {
  let origin = 'http://127.0.0.1';
  const server = createServer((req, res) => {
    const aborted = new AbortController();
    res.on('close', () => aborted.abort());
    void (async () => {
      try {
        const request = await toRequest(req, origin, aborted.signal);
        if (request === 'too_large')
          return refuseTooLarge(res, {
            error: 'PAYLOAD_TOO_LARGE',
            message: `request bodies are at most ${MAX_BODY_BYTES} bytes`,
          });
        await writeResponse(res, await handler(request));
      } catch (error) {
        if (!aborted.signal.aborted) options.onError?.(error);
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
        res.end();
      }
    })();
  });
  await listenOn(server, options.port ?? 0, '127.0.0.1');
  const port = (server.address() as AddressInfo).port;
  origin = `http://127.0.0.1:${port}`;
  return {
    server,
    port,
    origin,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
