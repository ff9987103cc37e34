// HTTP(S) transport on node:http with keep-alive agents: measured faster than global fetch for
// many small POSTs to one receiver (see bench/). Each attempt has its own timeout.
//
// A kept-alive connection can be closed by the receiver while idle (its keep-alive timeout) at the
// moment a request is written on it; the request then fails with a reset before any answer, and the
// receiver never read it. Such a request is written once more on a new connection, as Node's docs
// advise for `request.reusedSocket` and as hyper does for requests its pool cancelled: otherwise a
// busy sender's attempt fails now and then for a race of its own connection pool, and the delivery
// spends a retry. A receiver that did read the request and then dropped the connection gets it
// again, with the same webhook id, as it would at the delivery's retry; a second reset is the
// attempt's failure.
import http from 'node:http';
import https from 'node:https';
import { performance } from 'node:perf_hooks';
import type { Clock } from '../../world/clock.js';
import { checkOptionKeys, describeValue, TwinError } from '../../errors.js';
import {
  parseRetryAfter,
  TransportFailure,
  type OutgoingRequest,
  type Transport,
  type TransportResponse,
} from './transport.js';

export interface HttpTransportOptions {
  /** The clock receivers verify against; omit for wall time (a user's app checks its own clock). */
  readonly clock?: Clock;
  readonly maxSockets?: number;
}

const OPTION_KEYS = ['clock', 'maxSockets'];

/**
 * A misspelt key (timeoutMs is each request's, not the transport's) was dropped, and maxSockets: 0
 * or NaN reached node's Agent, which then never sent a request.
 */
function checkHttpOptions(options: unknown): void {
  const refuse = (path: string, message: string): never => {
    throw new TwinError('INVALID_ARGUMENT', `new HttpTransport(options): ${message}`, { path });
  };
  checkOptionKeys('new HttpTransport(options)', options, OPTION_KEYS, 'options', true);
  const given = options as Record<string, unknown>;
  const { clock, maxSockets } = given;
  if (clock !== undefined && typeof (clock as { now?: unknown } | null)?.now !== 'function')
    refuse('clock', `clock must be a Clock with now(), got ${describeValue(clock)}`);
  if (
    maxSockets !== undefined &&
    !(typeof maxSockets === 'number' && Number.isSafeInteger(maxSockets) && maxSockets >= 1)
  )
    refuse(
      'maxSockets',
      `maxSockets must be a whole number, 1 or more, got ${describeValue(maxSockets)}`,
    );
}

/** Errors raised before a connection exists: not one byte of the request left. */
const NEVER_SENT = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EADDRNOTAVAIL',
  'ERR_INVALID_URL',
]);

export class HttpTransport implements Transport {
  readonly name = 'http';
  private readonly httpAgent: http.Agent;
  private readonly httpsAgent: https.Agent;
  private readonly clock: Clock | undefined;

  constructor(options: HttpTransportOptions = {}) {
    checkHttpOptions(options);
    this.clock = options.clock;
    this.httpAgent = new http.Agent({ keepAlive: true, maxSockets: options.maxSockets ?? 64 });
    this.httpsAgent = new https.Agent({ keepAlive: true, maxSockets: options.maxSockets ?? 64 });
  }

  now(): number {
    // The one sanctioned wall-clock read: a receiver outside the world checks signatures against its own clock.
    return this.clock?.now() ?? Date.now();
  }

  send(request: OutgoingRequest): Promise<TransportResponse> {
    return this.write(request, performance.now() + request.timeoutMs, true);
  }

  /** One request; on its `firstTry`, a stale kept-alive connection is replaced by a new one. */
  private write(
    request: OutgoingRequest,
    deadline: number,
    firstTry: boolean,
  ): Promise<TransportResponse> {
    return new Promise((resolve, reject) => {
      let url: URL;
      try {
        url = new URL(request.url);
      } catch {
        reject(new TransportFailure('not_sent'));
        return;
      }
      const secure = url.protocol === 'https:';
      if (!secure && url.protocol !== 'http:') {
        reject(new TransportFailure('not_sent'));
        return;
      }
      const body = Buffer.from(request.body, 'utf8');
      const req = (secure ? https : http).request(url, {
        method: 'POST',
        agent: secure ? this.httpsAgent : this.httpAgent,
        headers: { ...request.headers, 'content-length': String(body.length) },
      });
      let settled = false;
      const fail = (kind: TransportFailure['kind']): void => {
        if (settled) return;
        settled = true;
        reject(new TransportFailure(kind));
      };
      const timer = setTimeout(
        () => {
          fail('timeout');
          req.destroy();
        },
        Math.max(0, deadline - performance.now()),
      );
      let answered = false;
      req.on('error', (error: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        const stale =
          firstTry &&
          !settled &&
          !answered &&
          req.reusedSocket &&
          (error.code === 'ECONNRESET' || error.code === 'EPIPE');
        if (stale) {
          settled = true;
          resolve(this.write(request, deadline, false));
          return;
        }
        fail(
          error.code === 'ECONNRESET' || error.code === 'EPIPE'
            ? 'connection_reset'
            : NEVER_SENT.has(error.code ?? '')
              ? 'not_sent'
              : 'connection_error',
        );
      });
      req.on('response', (res) => {
        answered = true;
        // Drain and drop the body: it never enters history, and draining frees the socket for reuse.
        res.resume();
        res.on('end', () => {
          clearTimeout(timer);
          if (settled) return;
          settled = true;
          resolve({
            status: res.statusCode ?? 0,
            retryAfterSec: parseRetryAfter(res.headers['retry-after']),
          });
        });
        res.on('error', () => {
          clearTimeout(timer);
          fail('connection_reset');
        });
      });
      req.end(body);
    });
  }

  close(): void {
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }
}
