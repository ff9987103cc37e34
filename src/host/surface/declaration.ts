// A vendor API surface as data: the routes a vendor's SDK calls (method, path pattern, the SDK
// method served, read or write, handler), how request bodies and queries decode, who a
// credential is, how refusals render in the vendor's envelope, and the idempotency rule. The host
// (../host.ts) serves any number of surfaces; packs declare theirs beside the pack. See
// docs/host.md.
import { describeValue, TwinError } from '../../errors.js';
import type { JsonObject, JsonValue } from '../../log/json-value.js';
import type { World } from '../../world/world.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** What a handler answers: a JSON body (status 200), or a status, body and headers of its choosing. */
export type RouteAnswer =
  | JsonValue
  | {
      readonly status: number;
      readonly body: JsonValue;
      readonly headers?: Readonly<Record<string, string>>;
      /** Marks this object as an answer rather than a JSON body. */
      readonly answer: true;
    };

export function answer(
  status: number,
  body: JsonValue,
  headers?: Readonly<Record<string, string>>,
): RouteAnswer {
  return headers === undefined
    ? { status, body, answer: true }
    : { status, body, headers, answer: true };
}

/** Everything a handler is given for one request. */
export interface RouteContext<P> {
  readonly world: World;
  /** Who the credential is (the surface's auth). */
  readonly principal: P;
  /** `:name` segments of the route's path. */
  readonly params: Readonly<Record<string, string>>;
  /** The decoded body (writes) or query (reads). */
  readonly input: JsonObject;
  readonly request: Request;
  /** The host's own origin (`http://127.0.0.1:N`): every URL an answer carries is on it. */
  readonly origin: string;
}

export interface Route<P> {
  readonly method: HttpMethod;
  /** `/v1/customers/:id`: static segments win over `:params` when both match. */
  readonly path: string;
  /** The SDK method this route serves, as the SDK names it (`customers.create`). */
  readonly sdk: string;
  /** A write runs as one atomic action on a twin; a read never appends. */
  readonly kind: 'read' | 'write';
  /** Event types a call of this route can cause (for the coverage table). */
  readonly events?: readonly string[];
  readonly handle: (ctx: RouteContext<P>) => Promise<RouteAnswer> | RouteAnswer;
}

/** A refusal rendered in the vendor's envelope. */
export interface RenderedError {
  readonly status: number;
  readonly body: JsonValue;
  readonly headers?: Readonly<Record<string, string>>;
}

/** How a surface treats idempotency keys (Stripe's `Idempotency-Key`). */
export interface IdempotencyRule<P> {
  /** The key a request carries, if any; only write routes are keyed. */
  key(request: Request): string | undefined;
  /** The account the key belongs to: keys of different accounts never meet. */
  scope(principal: P): string;
  /** How long a key is kept, on the world clock (Stripe: 24 h). */
  readonly ttlMs: number;
  /** Whether an answer is saved (Stripe saves what ran, refusals before execution are not). */
  saves(status: number, error: unknown): boolean;
  /** Another request holds the key and has not answered yet. */
  inProgress(key: string): RenderedError;
  /** The key was used with other parameters. */
  mismatch(key: string): RenderedError;
  /** Headers added to a replayed answer (Stripe: `Idempotent-Replayed: true`). */
  readonly replayHeaders?: Readonly<Record<string, string>>;
}

/**
 * Work a surface does on the world clock that is not scheduled on it (Stripe's renewals): when the
 * next is due, and running everything due by now (one atomic action each); answers how many ran.
 */
export interface ClockParticipant {
  dueAt(world: World): Promise<number | undefined>;
  runDue(world: World): Promise<number>;
}

export interface Surface<P = unknown> {
  /** The vendor, e.g. "stripe". */
  readonly name: string;
  /** Whether a request is this surface's: by path prefix (`/v1/`) or a test of the pack's own. */
  readonly prefix?: string;
  matches?(url: URL, request: Request): boolean;
  readonly routes: readonly Route<P>[];
  /** Reads the body (writes) or query (reads) into plain JSON; may throw a refusal. */
  decode(request: Request, url: URL, route: Route<P>): Promise<JsonObject>;
  /** Credential → principal; throws a refusal the surface renders. */
  auth(request: Request, world: World): Promise<P> | P;
  /** Any refusal (thrown by auth, decode or a handler) in the vendor's envelope and status. */
  renderError(error: unknown, request: Request): RenderedError;
  /** A path of this surface that no route serves: the vendor's own "unknown route" answer. */
  unknownRoute(method: string, path: string): RenderedError;
  /**
   * A request body over the host's cap of `limit` bytes, in the vendor's envelope (the SDK reads
   * its message); without it the kernel's 413 `{error: {code: 'PAYLOAD_TOO_LARGE', message}}`.
   */
  tooLarge?(limit: number): RenderedError;
  readonly idempotency?: IdempotencyRule<P>;
  /** What this surface does as the world clock moves (see ClockParticipant). */
  readonly clock?: ClockParticipant;
  /** Headers on every answer (e.g. `Request-Id`); `seq` counts the host's requests. */
  headers?(request: Request): Readonly<Record<string, string>>;
}

/** Declares a surface, checking its routes up front: a bad table fails at startup, not per request. */
export function defineSurface<P>(surface: Surface<P>): Surface<P> {
  // An identity for the types, checked once here: a surface with no name or routes failed at the
  // first request it was asked to match.
  const given = surface as Partial<Surface<P>> | null | undefined;
  if (typeof given !== 'object' || given === null)
    throw new TwinError(
      'INVALID_ARGUMENT',
      `defineSurface(surface): surface must be an object {name, routes, decode, auth, renderError, unknownRoute, ...}, got ${describeValue(surface)}`,
      { path: 'surface' },
    );
  if (typeof given.name !== 'string' || given.name === '')
    throw new TwinError(
      'INVALID_ARGUMENT',
      `defineSurface(surface): name must be a non-empty string, got ${describeValue(given.name)}`,
      { path: 'surface.name' },
    );
  if (!Array.isArray(given.routes))
    throw new TwinError(
      'INVALID_ARGUMENT',
      `defineSurface(surface): routes must be an array of routes, got ${describeValue(given.routes)}`,
      { path: 'surface.routes' },
    );
  return surface;
}
