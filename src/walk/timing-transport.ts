// Wall-clock timing of each request, kept beside the log and never in it: the walk reports how
// long attempts took in real time, while the log holds only world-clock values.
import { performance } from 'node:perf_hooks';
import type {
  OutgoingRequest,
  Transport,
  TransportResponse,
} from '../events/transports/transport.js';

export class TimingTransport implements Transport {
  readonly name: string;

  constructor(
    private readonly inner: Transport,
    /** Called with the request's headers object (the observer's packet has the same one) and the wall time. */
    private readonly record: (headers: OutgoingRequest['headers'], wallMs: number) => void,
  ) {
    this.name = inner.name;
  }

  now(): number {
    return this.inner.now();
  }

  async send(request: OutgoingRequest): Promise<TransportResponse> {
    const started = performance.now();
    try {
      return await this.inner.send(request);
    } finally {
      this.record(request.headers, performance.now() - started);
    }
  }

  close(): void {
    this.inner.close?.();
  }
}
