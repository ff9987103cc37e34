// The walk dispatcher's one transport: walk receivers in-process, mounted servers over HTTP by
// their stable names, anything else over HTTP — every packet signed on the world clock, since a
// walk's receivers all verify against it. Each request is timed in wall time for the report.
import { HttpTransport } from '../events/transports/http-transport.js';
import { TransportRoutes } from '../events/transports/routes.js';
import type {
  OutgoingRequest,
  Transport,
  TransportResponse,
} from '../events/transports/transport.js';
import type { Clock } from '../world/clock.js';
import type { FaultReceiver } from './fault-receiver.js';
import { MountTransport, mountPrefix } from './mount-transport.js';
import { RECEIVERS_PREFIX, receiverTransport } from './receiver-transport.js';
import { TimingTransport } from './timing-transport.js';

export class WalkRouter implements Transport {
  readonly name = 'walk';
  private readonly routes: TransportRoutes;
  private readonly http: HttpTransport;
  private readonly fallback: Transport;

  constructor(
    private readonly clock: Clock,
    receivers: ReadonlyMap<string, FaultReceiver>,
    private readonly onTimed: (headers: OutgoingRequest['headers'], wallMs: number) => void,
    fallback?: Transport,
  ) {
    this.http = new HttpTransport({ clock });
    this.fallback = new TimingTransport(fallback ?? this.http, onTimed);
    this.routes = new TransportRoutes(
      [
        {
          prefix: RECEIVERS_PREFIX,
          transport: new TimingTransport(receiverTransport(clock, receivers), onTimed),
        },
      ],
      this.fallback,
    );
  }

  /** Routes http://<name>.walk.invalid/… to `target` (e.g. http://127.0.0.1:40123) over HTTP. */
  mount(name: string, target: string): string {
    const prefix = mountPrefix(name);
    const base = target.endsWith('/') ? target : `${target}/`;
    this.routes.add({
      prefix,
      transport: new TimingTransport(new MountTransport(prefix, base, this.http), this.onTimed),
    });
    return prefix;
  }

  now(): number {
    return this.clock.now();
  }

  send(request: OutgoingRequest): Promise<TransportResponse> {
    return this.routes.for(request.url).send(request);
  }

  close(): void {
    this.http.close();
    this.fallback.close?.();
  }
}
