// A TCP proxy on 127.0.0.1 in front of a real server (the test PostgreSQL server), so a test can
// make the server go away — every connection cut, the port refused — or hang — connections open,
// nothing read — and come back, without stopping the server other test files share.
import { createServer, connect, type Server, type Socket } from 'node:net';

export interface TcpProxy {
  readonly port: number;
  /** Cuts every connection and stops listening: clients see a reset, then a refused port. */
  cut(): Promise<void>;
  /** Listens again on the same port, forwarding as before. */
  reopen(): Promise<void>;
  /** Stops passing on what clients send: their requests wait, unanswered, until `release`. */
  hold(): void;
  release(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(targetPort: number): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  /** What each client sent while held, per connection, for `release` to pass on in order. */
  const waiting = new Map<Socket, { upstream: Socket; chunks: Buffer[] }>();
  let held = false;
  const track = (socket: Socket): void => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  };
  const onConnection = (client: Socket): void => {
    const upstream = connect(targetPort, '127.0.0.1');
    track(client);
    track(upstream);
    const queue = { upstream, chunks: [] as Buffer[] };
    waiting.set(client, queue);
    client.on('data', (chunk: Buffer) => (held ? queue.chunks.push(chunk) : upstream.write(chunk)));
    client.on('close', () => {
      waiting.delete(client);
      upstream.destroy();
    });
    upstream.on('close', () => client.destroy());
    upstream.pipe(client);
  };
  let server: Server = createServer(onConnection);
  const listenOn = (port: number): Promise<number> =>
    new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        const address = server.address();
        resolve(typeof address === 'object' && address !== null ? address.port : port);
      });
    });
  const port = await listenOn(0);
  const cut = (): Promise<void> =>
    new Promise((resolve) => {
      if (!server.listening) return resolve();
      server.close(() => resolve());
      for (const socket of sockets) socket.destroy();
    });
  return {
    port,
    cut,
    async reopen() {
      server = createServer(onConnection);
      await listenOn(port);
    },
    hold() {
      held = true;
    },
    release() {
      held = false;
      for (const { upstream, chunks } of waiting.values())
        for (const chunk of chunks.splice(0)) upstream.write(chunk);
    },
    close: cut,
  };
}
