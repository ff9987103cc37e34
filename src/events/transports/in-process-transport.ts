// In-process transport for walks: the receiver is a function in this process and verifies on
// the world clock, so packets are deterministic for a seeded walk.
import type { Clock } from '../../world/clock.js';
import {
  TransportFailure,
  type OutgoingRequest,
  type Transport,
  type TransportResponse,
} from './transport.js';

export interface InProcessRequest extends OutgoingRequest {
  /** Epoch ms on the world clock when the packet arrives. */
  readonly receivedAt: number;
}

/** A receiver answers a status (and optionally Retry-After), or throws a TransportFailure to simulate the network. */
export type InProcessHandler = (
  request: InProcessRequest,
) => TransportResponse | number | Promise<TransportResponse | number>;

export class InProcessTransport implements Transport {
  readonly name = 'in-process';

  constructor(
    private readonly clock: Clock,
    private readonly handler: InProcessHandler,
  ) {}

  now(): number {
    return this.clock.now();
  }

  async send(request: OutgoingRequest): Promise<TransportResponse> {
    try {
      const answer = await this.handler({ ...request, receivedAt: this.clock.now() });
      return typeof answer === 'number' ? { status: answer } : answer;
    } catch (error) {
      throw error instanceof TransportFailure ? error : new TransportFailure('connection_error');
    }
  }
}
