// The ingress host's connection budget. Every open socket is a file descriptor, and an idle one
// costs an attacker nothing, so the host keeps at most `maxConnections`: at the cap, a new
// connection evicts the oldest connection that has no request in flight (a legitimate client
// always gets in, and the one evicted was doing nothing), and only when every connection is busy
// is the newcomer refused. Deadlines in seconds close what lingers: a connection that has not
// sent complete headers within `headersTimeoutSec`, a request whose body has not arrived within
// `bodyTimeoutSec`, a kept-alive connection idle for `keepAliveTimeoutSec`. Node's own timeouts
// are set to the same values and answer 408 where they can; the guard applies them to the slots
// it counts, so a slot is freed whether or not Node's periodic check has come round. Times here
// are wall time (monotonic): they bound sockets, not facts.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { TwinError } from '../../errors.js';

export interface IngressLimits {
  /** Open connections at most (default 1024). */
  readonly maxConnections: number;
  /** Complete request headers must arrive within this many seconds of connecting (default 10). */
  readonly headersTimeoutSec: number;
  /** The whole body must arrive within this many seconds of the headers (default 30). */
  readonly bodyTimeoutSec: number;
  /** A kept-alive connection with no new request is closed after this many seconds (default 5). */
  readonly keepAliveTimeoutSec: number;
  /** After a 413, the rest of an upload is read and discarded for at most this long (default 5)… */
  readonly lingerSec: number;
  /** …and at most this many bytes (default 16 MiB), so the client receives the answer. */
  readonly lingerBytes: number;
}

export const DEFAULT_LIMITS: IngressLimits = {
  maxConnections: 1024,
  headersTimeoutSec: 10,
  bodyTimeoutSec: 30,
  keepAliveTimeoutSec: 5,
  lingerSec: 5,
  lingerBytes: 16 * 1024 * 1024,
};

export function checkLimits(limits: IngressLimits): IngressLimits {
  const positive = (key: keyof IngressLimits, max: number): void => {
    const v = limits[key];
    if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0 || v > max) {
      throw new TwinError(
        'INVALID_ARGUMENT',
        `limits.${key} must be a positive number up to ${max}, got ${String(v)}`,
        { path: `limits.${key}` },
      );
    }
  };
  positive('maxConnections', 1_000_000);
  if (!Number.isInteger(limits.maxConnections))
    throw new TwinError('INVALID_ARGUMENT', 'limits.maxConnections must be an integer', {
      path: 'limits.maxConnections',
    });
  positive('headersTimeoutSec', 3600);
  positive('bodyTimeoutSec', 3600);
  positive('keepAliveTimeoutSec', 3600);
  positive('lingerSec', 600);
  positive('lingerBytes', 1024 ** 3);
  return { ...limits };
}

interface Tracked {
  /** A request on it has been received and not yet answered. */
  busy: boolean;
  /** performance.now() after which the socket is closed, unless it becomes busy first. */
  deadline: number;
  /** While busy: when the body must have arrived by; the request being received. */
  bodyDeadline: number;
  request: IncomingMessage | undefined;
}

export class ConnectionGuard {
  /** In order of arrival: the first idle one found is the oldest. */
  private readonly sockets = new Map<Socket, Tracked>();
  private timer: NodeJS.Timeout | undefined;
  private evicted = 0;
  private refused = 0;
  private timedOut = 0;

  constructor(private readonly limits: IngressLimits) {}

  accept(socket: Socket): void {
    if (this.sockets.size >= this.limits.maxConnections) {
      const victim = this.oldestIdle();
      if (victim === undefined) {
        this.refused++;
        socket.destroy();
        return;
      }
      this.evicted++;
      this.forget(victim).destroy();
    }
    this.sockets.set(socket, {
      busy: false,
      deadline: performance.now() + this.limits.headersTimeoutSec * 1000,
      bodyDeadline: Infinity,
      request: undefined,
    });
    // Errors of a socket we close or that the client resets are not worth a word.
    socket.on('error', () => {});
    socket.once('close', () => this.sockets.delete(socket));
  }

  requestStarted(req: IncomingMessage, res: ServerResponse): void {
    const tracked = this.sockets.get(req.socket);
    if (tracked === undefined) return;
    tracked.busy = true;
    tracked.request = req;
    tracked.bodyDeadline = performance.now() + this.limits.bodyTimeoutSec * 1000;
    res.once('close', () => {
      tracked.busy = false;
      tracked.request = undefined;
      tracked.bodyDeadline = Infinity;
      tracked.deadline = performance.now() + this.limits.keepAliveTimeoutSec * 1000;
    });
  }

  start(): void {
    this.timer = setInterval(() => this.sweep(), 1000);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
  }

  closeIdle(): void {
    for (const [socket, t] of [...this.sockets]) if (!t.busy) this.forget(socket).destroy();
  }

  stats(): { open: number; evicted: number; refused: number; timedOut: number } {
    return {
      open: this.sockets.size,
      evicted: this.evicted,
      refused: this.refused,
      timedOut: this.timedOut,
    };
  }

  private oldestIdle(): Socket | undefined {
    for (const [socket, t] of this.sockets) if (!t.busy) return socket;
    return undefined;
  }

  private forget(socket: Socket): Socket {
    this.sockets.delete(socket);
    return socket;
  }

  private sweep(): void {
    const now = performance.now();
    for (const [socket, t] of [...this.sockets]) {
      // A busy request whose body is complete is our work in flight: never cut off.
      const late = t.busy
        ? t.request !== undefined && !t.request.complete && now > t.bodyDeadline
        : now > t.deadline;
      if (!late) continue;
      this.timedOut++;
      this.forget(socket).destroy();
    }
  }
}
