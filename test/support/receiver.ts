// A real HTTP receiver on 127.0.0.1 for tests: records every request (headers and raw body) and
// answers with whatever the test decides.
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface ReceivedRequest {
  readonly url: string;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
  /** The client's port: distinct ports = distinct connections. */
  readonly remotePort: number;
}

export interface Receiver {
  readonly url: string;
  readonly requests: ReceivedRequest[];
  /**
   * Resolves once no client connection is open: every byte a (dead) sender wrote has been read and
   * recorded. An event to wait on instead of guessing how long the kernel takes to hand them over.
   */
  quiet(): Promise<void>;
  close(): Promise<void>;
}

export async function startReceiver(
  answer: (req: ReceivedRequest) => number | Promise<number> = () => 200,
  options: { keepAliveMs?: number } = {},
): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const received = {
        url: req.url ?? '/',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        remotePort: req.socket.remotePort ?? 0,
      };
      requests.push(received);
      void Promise.resolve(answer(received)).then((status) => {
        res.writeHead(status, { 'content-type': 'text/plain' });
        res.end('ok');
      });
    });
  });
  const sockets = new Set<Socket>();
  let waiting: (() => void)[] = [];
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => {
      sockets.delete(socket);
      if (sockets.size > 0) return;
      const resolved = waiting;
      waiting = [];
      for (const resolve of resolved) resolve();
    });
  });
  server.keepAliveTimeout = options.keepAliveMs ?? 5_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    quiet: () =>
      sockets.size === 0
        ? Promise.resolve()
        : new Promise<void>((resolve) => waiting.push(resolve)),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
