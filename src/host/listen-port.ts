// Opening a server's port: the one place the host, the console and the ingress start listening,
// so that a port another process holds (or one this user may not open) is answered as a typed
// refusal naming the port and the way out, never as Node's bare EADDRINUSE or EACCES.
import { createServer, type Server } from 'node:net';
import { TwinError } from '../errors.js';

/** Why listening on `port` failed, typed when the cause is the port; otherwise the error itself. */
export function portRefusal(error: unknown, host: string, port: number): unknown {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const where = `${host}:${port}`;
  if (code === 'EADDRINUSE')
    return new TwinError(
      'PORT_IN_USE',
      `port ${port} is in use on ${host}: another process listens there; pick another --port, or 0 for a free one`,
      { path: 'port', details: { host, port }, cause: error },
    );
  if (code === 'EACCES')
    return new TwinError(
      'PORT_NOT_PERMITTED',
      `this user may not listen on ${where} (ports below 1024 need privileges); pick a --port of 1024 or more, or 0 for a free one`,
      { path: 'port', details: { host, port }, cause: error },
    );
  return error;
}

/** Listens on `host:port`; resolves once the port is open, rejects with portRefusal's answer. */
export function listenOn(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const failed = (error: Error): void => reject(portRefusal(error, host, port));
    server.once('error', failed);
    server.listen(port, host, () => {
      server.off('error', failed);
      resolve();
    });
  });
}

/**
 * Refuses a port that is already taken, as listenOn would, before a command opens (and perhaps
 * creates) its world: a refused start leaves no root behind. Another process may still take the
 * port in between; listenOn then answers the same refusal.
 */
export async function checkPortFree(port: number, host = '127.0.0.1'): Promise<void> {
  if (port === 0) return;
  const probe = createServer();
  await listenOn(probe, port, host);
  await new Promise((resolve) => probe.close(resolve));
}
