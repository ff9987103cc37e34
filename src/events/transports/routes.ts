// Prefix routing of packets to transports: the first route whose URL prefix matches, else the
// fallback. Shared by the dispatcher (its `routes` option) and the walk's router.
import type { Transport } from './transport.js';

export interface TransportRoute {
  /** URLs starting with this prefix go through `transport`. */
  readonly prefix: string;
  readonly transport: Transport;
}

export class TransportRoutes {
  private readonly routes: TransportRoute[];

  constructor(
    routes: readonly TransportRoute[],
    private readonly fallback: Transport,
  ) {
    this.routes = [...routes];
  }

  /** Adds a route, tried after the ones before it. */
  add(route: TransportRoute): void {
    this.routes.push(route);
  }

  /** The transport a URL goes through (whose clock its packet is signed on). */
  for(url: string): Transport {
    for (const route of this.routes) if (url.startsWith(route.prefix)) return route.transport;
    return this.fallback;
  }
}
