// Matching a request to a surface's route: each path pattern is split into segments; a request
// path matches segment by segment, and among matches the one with the most static segments
// (earliest) wins, so `/v1/customers/search` is found before `/v1/customers/:id`.
import { TwinError } from '../../errors.js';
import type { HttpMethod, Route } from './declaration.js';

const METHODS: readonly HttpMethod[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
const SEGMENT = /^(?::[A-Za-z_][A-Za-z0-9_]*|[A-Za-z0-9_.~-]+)$/;

interface Compiled<P> {
  readonly route: Route<P>;
  readonly segments: readonly string[];
  /** Static segments scored by position: higher wins. */
  readonly rank: number;
}

export interface RouteMatch<P> {
  readonly route: Route<P>;
  readonly params: Record<string, string>;
}

export class RouteTable<P> {
  private readonly compiled: Compiled<P>[] = [];

  constructor(surface: string, routes: readonly Route<P>[]) {
    const seen = new Set<string>();
    routes.forEach((route, i) => {
      const where = `surface "${surface}" route ${i} (${String(route?.method)} ${String(route?.path)})`;
      if (!METHODS.includes(route?.method))
        throw new TwinError(
          'INVALID_CONFIG',
          `${where}: method must be one of ${METHODS.join(', ')}`,
          {
            path: `routes[${i}].method`,
          },
        );
      if (typeof route.path !== 'string' || !route.path.startsWith('/'))
        throw new TwinError('INVALID_CONFIG', `${where}: path must start with "/"`, {
          path: `routes[${i}].path`,
        });
      const segments = route.path.split('/').slice(1);
      for (const s of segments)
        if (!SEGMENT.test(s))
          throw new TwinError(
            'INVALID_CONFIG',
            `${where}: segment "${s}" is neither a literal (letters, digits, _ . ~ -) nor :name`,
            { path: `routes[${i}].path` },
          );
      if (route.kind !== 'read' && route.kind !== 'write')
        throw new TwinError('INVALID_CONFIG', `${where}: kind must be "read" or "write"`, {
          path: `routes[${i}].kind`,
        });
      if (route.method === 'GET' && route.kind !== 'read')
        throw new TwinError(
          'INVALID_CONFIG',
          `${where}: a GET route is a read; GETs never append`,
          {
            path: `routes[${i}].kind`,
          },
        );
      if (typeof route.handle !== 'function' || typeof route.sdk !== 'string' || route.sdk === '')
        throw new TwinError(
          'INVALID_CONFIG',
          `${where}: needs an sdk method name and a handle function`,
          {
            path: `routes[${i}]`,
          },
        );
      const shape = `${route.method} ${segments.map((s) => (s.startsWith(':') ? ':' : s)).join('/')}`;
      if (seen.has(shape))
        throw new TwinError(
          'INVALID_CONFIG',
          `${where}: another route has the same method and path`,
          {
            path: `routes[${i}].path`,
          },
        );
      seen.add(shape);
      let rank = 0;
      segments.forEach((s, k) => {
        if (!s.startsWith(':')) rank += 2 ** (32 - k);
      });
      this.compiled.push({ route, segments, rank });
    });
    this.compiled.sort((a, b) => b.rank - a.rank);
  }

  /** The route for a method and path; `pathKnown` tells whether another method serves the path. */
  match(method: string, path: string): RouteMatch<P> | undefined {
    const parts = path.split('/').slice(1);
    for (const c of this.compiled) {
      if (c.route.method !== method || c.segments.length !== parts.length) continue;
      const params: Record<string, string> = {};
      let ok = true;
      for (let i = 0; i < parts.length && ok; i++) {
        const seg = c.segments[i]!;
        const part = parts[i]!;
        if (seg.startsWith(':')) {
          if (part === '') ok = false;
          else params[seg.slice(1)] = safeDecode(part);
        } else ok = seg === part;
      }
      if (ok) return { route: c.route, params };
    }
    return undefined;
  }

  get routes(): readonly Route<P>[] {
    return this.compiled.map((c) => c.route);
  }
}

function safeDecode(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}
