// HTTP(S) transport on node:http with keep-alive agents: measured faster than global fetch for
// many small POSTs to one receiver (see bench/). Each attempt has its own timeout.
import http from 'node:http';
import https from 'node:https';
import type { Clock } from '../../world/clock.js';
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
    this.clock = options.clock;
    this.httpAgent = new http.Agent({ keepAlive: true, maxSockets: options.maxSockets ?? 64 });
    this.httpsAgent = new https.Agent({ keepAlive: true, maxSockets: options.maxSockets ?? 64 });
  }

  now(): number {
    // The one sanctioned wall-clock read: a receiver outside the world checks signatures against its own clock.
    return this.clock?.now() ?? Date.now();
  }

  send(request: OutgoingRequest): Promise<TransportResponse> {
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
      const timer = setTimeout(() => {
        fail('timeout');
        req.destroy();
      }, request.timeoutMs);
      req.on('error', (error: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        fail(
          error.code === 'ECONNRESET' || error.code === 'EPIPE'
            ? 'connection_reset'
            : NEVER_SENT.has(error.code ?? '')
              ? 'not_sent'
              : 'connection_error',
        );
      });
      req.on('response', (res) => {
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
