// A stable name for a real server: endpoints point at http://<name>.walk.invalid/…, and this
// transport sends to the server's actual address (a port picked at random) over HTTP. The log
// keeps the stable URL, so the same walk writes the same log whichever port the server got.
import type {
  OutgoingRequest,
  Transport,
  TransportResponse,
} from '../events/transports/transport.js';

export function mountPrefix(name: string): string {
  return `http://${name}.walk.invalid/`;
}

export class MountTransport implements Transport {
  readonly name = 'mount';

  constructor(
    private readonly prefix: string,
    /** Where the prefix really points, e.g. http://127.0.0.1:40123/ */
    private readonly target: string,
    private readonly inner: Transport,
  ) {}

  now(): number {
    return this.inner.now();
  }

  send(request: OutgoingRequest): Promise<TransportResponse> {
    const url = request.url.startsWith(this.prefix)
      ? `${this.target}${request.url.slice(this.prefix.length)}`
      : request.url;
    return this.inner.send({ ...request, url });
  }

  close(): void {
    this.inner.close?.();
  }
}
