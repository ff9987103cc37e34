// The host: one WHATWG fetch handler that serves any number of vendor surfaces (each by its path
// prefix or its own test) and the control plane under /_twinworld/. A write route runs its
// handler — one atomic action on a twin — under the surface's idempotency rule; a read never
// appends. The webhooks a request causes are handed to the dispatcher only after its answer is
// out (see docs/host.md).
import { randomBytes } from 'node:crypto';
import { checkOptionKeys, checkWorld, describeValue, isTwinError, TwinError } from '../errors.js';
import { Dispatcher } from '../events/dispatcher.js';
import { registerPack, type Pack } from '../events/pack-registry.js';
import { canonicalJson, sha256Hex } from '../log/canonical-json.js';
import type { JsonObject, JsonValue } from '../log/json-value.js';
import type { Twin } from '../world/twin.js';
import type { World } from '../world/world.js';
import { clockControl } from './control/clock.js';
import { checkHealthTimeout, healthControl } from './control/health.js';
import { jsonResponse, type ControlHandler } from './control/respond.js';
import type {
  ClockParticipant,
  RenderedError,
  Route,
  RouteAnswer,
  Surface,
} from './surface/declaration.js';
import { RouteTable } from './surface/route-table.js';

export const CONTROL_PREFIX = '/_twinworld/';

const HOST_OPTION_KEYS: readonly (keyof HostOptions)[] = [
  'world',
  'surfaces',
  'dispatcher',
  'healthTimeoutMs',
];

export interface HostOptions {
  readonly world: World;
  readonly surfaces?: readonly Surface<any>[];
  /**
   * Sends the webhooks requests cause. By default the host makes one that sends only when told
   * (after each answer) and closes it with the host.
   */
  readonly dispatcher?: Dispatcher;
  /**
   * How long `GET /_twinworld/health` waits for the store's answer before it answers 503
   * (default 2000 ms).
   */
  readonly healthTimeoutMs?: number;
}

interface Served {
  readonly surface: Surface<any>;
  readonly table: RouteTable<any>;
}

/** What a host counts, for tests and the console: requests by kind, and answers replayed. */
export interface HostStats {
  reads: number;
  writes: number;
  replayed: number;
  refused: number;
}

export class SurfaceHost {
  readonly world: World;
  readonly dispatcher: Dispatcher;
  readonly stats: HostStats = { reads: 0, writes: 0, replayed: 0, refused: 0 };
  private readonly ownsDispatcher: boolean;
  private readonly served: Served[] = [];
  private readonly control = new Map<string, ControlHandler>();
  /** Set by the listener (`http://127.0.0.1:N`); what answers put in every URL they carry. */
  origin = 'http://127.0.0.1';

  constructor(options: HostOptions) {
    if (options?.world === undefined)
      throw new TwinError(
        'INVALID_ARGUMENT',
        'createHost({ world, surfaces }): world is required',
        {
          path: 'world',
        },
      );
    // {surface: [...]} was dropped: a host serving nothing, answering every route 404.
    checkOptionKeys('createHost(options)', options, HOST_OPTION_KEYS);
    checkWorld('createHost(options)', options.world);
    if (options.surfaces !== undefined && !Array.isArray(options.surfaces))
      throw new TwinError(
        'INVALID_ARGUMENT',
        `createHost(options): surfaces must be an array of surfaces (defineSurface(...)), got ${describeValue(options.surfaces)}`,
        { path: 'options.surfaces' },
      );
    this.world = options.world;
    const healthTimeoutMs = checkHealthTimeout(options.healthTimeoutMs);
    this.ownsDispatcher = options.dispatcher === undefined;
    this.dispatcher =
      options.dispatcher ?? new Dispatcher(this.world, { autoDispatch: 'on-flush' });
    for (const surface of options.surfaces ?? []) this.serve(surface);
    this.mount('health', healthControl(this.world, healthTimeoutMs));
    this.mount('surfaces', () =>
      jsonResponse(200, {
        surfaces: this.served.map(({ surface, table }) => ({
          name: surface.name,
          prefix: surface.prefix ?? null,
          routes: table.routes.map((r) => ({
            method: r.method,
            path: r.path,
            sdk: r.sdk,
            kind: r.kind,
          })),
        })),
      }),
    );
    this.mount('clock', clockControl(this));
  }

  /** Adds a surface; its route table is checked now. */
  serve(surface: Surface<any>): void {
    if (surface === null || typeof surface !== 'object' || typeof surface.name !== 'string')
      throw new TwinError('INVALID_CONFIG', 'a surface needs a name', { path: 'surface.name' });
    if (this.served.some((s) => s.surface.name === surface.name))
      throw new TwinError('INVALID_CONFIG', `surface "${surface.name}" is served already`, {
        path: 'surface.name',
      });
    if (surface.prefix === undefined && surface.matches === undefined)
      throw new TwinError(
        'INVALID_CONFIG',
        `surface "${surface.name}" needs a prefix ("/v1/") or a matches(url, request) test`,
        { path: 'surface.prefix' },
      );
    this.served.push({ surface, table: new RouteTable(surface.name, surface.routes) });
  }

  /**
   * Serves `/_twinworld/<name>` and everything under it with `handler` (the console mounts
   * `console`). Names are one segment; a name is mounted once.
   */
  mount(name: string, handler: ControlHandler): void {
    if (!/^[a-z][a-z0-9-]*$/.test(name))
      throw new TwinError(
        'INVALID_ARGUMENT',
        `control name "${name}" must be one lowercase segment`,
        {
          path: 'name',
        },
      );
    if (this.control.has(name))
      throw new TwinError('INVALID_ARGUMENT', `/_twinworld/${name} is mounted already`, {
        path: 'name',
      });
    this.control.set(name, handler);
  }

  /** The routes of every surface served, for coverage tables. */
  routes(): { surface: string; route: Route<unknown> }[] {
    return this.served.flatMap(({ surface, table }) =>
      table.routes.map((route) => ({ surface: surface.name, route: route as Route<unknown> })),
    );
  }

  /** Registers a pack (an account's twin) and lets the host's dispatcher send its webhooks. */
  packTwin(pack: Pack): Twin {
    const twin = registerPack(this.world, pack);
    this.dispatcher.attach(pack);
    return twin;
  }

  /** The clock participants of every surface served. */
  clockParticipants(): ClockParticipant[] {
    return this.served.flatMap(({ surface }) =>
      surface.clock === undefined ? [] : [surface.clock],
    );
  }

  /** Hands what commits have queued to the dispatcher: called once an answer is out. */
  sendQueued(): void {
    this.dispatcher.flush();
  }

  /** The WHATWG fetch handler. */
  fetch = async (request: Request): Promise<Response> => {
    let url: URL;
    try {
      url = new URL(request.url);
    } catch {
      return jsonResponse(400, { error: { code: 'INVALID_ARGUMENT', message: 'bad request URL' } });
    }
    const response = await this.world.run(() => this.answer(request, url));
    // The answer is built; what it caused goes out after the caller has written it.
    setImmediate(() => this.sendQueued());
    return response;
  };

  /**
   * The answer to a request whose body passed the port's cap (node-server.ts stopped reading it):
   * in the envelope of the surface it was for (`Surface.tooLarge`), else the kernel's 413. The
   * connection is closed, since the rest of the body was never read.
   */
  tooLarge(request: Request, limit: number): Response {
    const url = new URL(request.url);
    const served = url.pathname.startsWith(CONTROL_PREFIX)
      ? undefined
      : this.servedFor(url, request);
    const rendered: RenderedError = served?.surface.tooLarge?.(limit) ?? {
      status: 413,
      body: {
        error: { code: 'PAYLOAD_TOO_LARGE', message: `request bodies are at most ${limit} bytes` },
      },
    };
    if (served !== undefined) this.stats.refused++;
    return jsonResponse(rendered.status, rendered.body, {
      ...served?.surface.headers?.(request),
      ...rendered.headers,
      connection: 'close',
    });
  }

  private servedFor(url: URL, request: Request): Served | undefined {
    return this.served.find(({ surface }) =>
      surface.matches !== undefined
        ? surface.matches(url, request)
        : url.pathname.startsWith(surface.prefix!),
    );
  }

  private async answer(request: Request, url: URL): Promise<Response> {
    if (url.pathname.startsWith(CONTROL_PREFIX)) return this.controlAnswer(request, url);
    const served = this.servedFor(url, request);
    if (served === undefined)
      return jsonResponse(404, {
        error: {
          code: 'UNKNOWN_SURFACE',
          message: `no surface serves ${url.pathname}; served: ${this.served.map((s) => s.surface.prefix ?? s.surface.name).join(', ') || 'none'}, and ${CONTROL_PREFIX}`,
        },
      });
    return this.surfaceAnswer(served, request, url);
  }

  private async controlAnswer(request: Request, url: URL): Promise<Response> {
    const rest = url.pathname.slice(CONTROL_PREFIX.length);
    const name = rest.split('/')[0]!;
    const handler = this.control.get(name);
    if (handler === undefined)
      return jsonResponse(404, {
        error: {
          code: 'UNKNOWN_CONTROL',
          message: `no control endpoint ${url.pathname}; mounted: ${[...this.control.keys()].map((k) => CONTROL_PREFIX + k).join(', ')}`,
        },
      });
    try {
      return await handler(request, url, rest.slice(name.length));
    } catch (error) {
      if (!isTwinError(error)) this.world.reportError(error, `control ${url.pathname}`);
      return jsonResponse(isTwinError(error) ? 400 : 500, {
        error: isTwinError(error)
          ? { code: error.code, message: error.message, path: error.path ?? null }
          : { code: 'INTERNAL', message: 'the control endpoint failed; see the host log' },
      });
    }
  }

  private async surfaceAnswer(served: Served, request: Request, url: URL): Promise<Response> {
    const { surface, table } = served;
    const headers = surface.headers?.(request) ?? {};
    const refuse = (rendered: RenderedError): Response => {
      this.stats.refused++;
      return jsonResponse(rendered.status, rendered.body, { ...headers, ...rendered.headers });
    };
    let principal: unknown;
    try {
      principal = await surface.auth(request, this.world);
    } catch (error) {
      return refuse(this.rendered(surface, error, request));
    }
    const found = table.match(request.method, url.pathname);
    if (found === undefined) return refuse(surface.unknownRoute(request.method, url.pathname));
    const { route, params } = found;
    let input: JsonObject;
    try {
      input = await surface.decode(request, url, route);
    } catch (error) {
      return refuse(this.rendered(surface, error, request));
    }
    const run = async (): Promise<Ran> => {
      try {
        const answered = await route.handle({
          world: this.world,
          principal,
          params,
          input,
          request,
          origin: this.origin,
        });
        return toAnswer(answered);
      } catch (error) {
        const r = this.rendered(surface, error, request);
        return { status: r.status, body: r.body, headers: { ...r.headers }, error };
      }
    };
    if (route.kind === 'read') {
      this.stats.reads++;
      const a = await run();
      return jsonResponse(a.status, a.body, { ...headers, ...a.headers });
    }
    this.stats.writes++;
    const rule = surface.idempotency;
    const key = rule?.key(request);
    if (rule === undefined || key === undefined) {
      const a = await run();
      return jsonResponse(a.status, a.body, { ...headers, ...a.headers });
    }
    const scope = rule.scope(principal);
    const fingerprint = sha256Hex(`${route.method} ${url.pathname}\n${canonicalJson(input)}`);
    let claim;
    try {
      claim = await this.world.idempotency.claim(
        scope,
        key,
        fingerprint,
        this.world.clock.now(),
        rule.ttlMs,
      );
    } catch (error) {
      return refuse(this.rendered(surface, error, request));
    }
    if (claim.state !== 'claimed') {
      if (claim.fingerprint !== fingerprint) return refuse(rule.mismatch(key));
      if (claim.state === 'in_progress') return refuse(rule.inProgress(key));
      this.stats.replayed++;
      return textResponse(claim.answer.status, claim.answer.body, {
        ...headers,
        ...rule.replayHeaders,
      });
    }
    const a = await run();
    const body = JSON.stringify(a.body);
    try {
      if (rule.saves(a.status, a.error))
        await this.world.idempotency.finish(scope, key, { status: a.status, body });
      else await this.world.idempotency.release(scope, key);
    } catch (error) {
      // The request ran; an unsaved answer is still its answer (a retry would find the key held).
      this.world.reportError(error, `saving idempotency key of ${route.method} ${url.pathname}`);
    }
    return textResponse(a.status, body, { ...headers, ...a.headers });
  }

  private rendered(surface: Surface<any>, error: unknown, request: Request): RenderedError {
    if (!isTwinError(error)) this.world.reportError(error, `surface ${surface.name}`);
    return surface.renderError(error, request);
  }

  /** Waits for what the host started after answers (dispatches), for tests and shutdown. */
  async idle(): Promise<void> {
    this.sendQueued();
    await this.dispatcher.idle();
  }

  async close(): Promise<void> {
    if (this.ownsDispatcher) await this.dispatcher.close();
  }
}

/** What a handler gave, or the refusal it threw rendered (and the refusal itself). */
interface Ran {
  readonly status: number;
  readonly body: JsonValue;
  readonly headers: Record<string, string>;
  readonly error?: unknown;
}

function toAnswer(a: RouteAnswer): Ran {
  if (
    a !== null &&
    typeof a === 'object' &&
    !Array.isArray(a) &&
    (a as { answer?: unknown }).answer === true
  ) {
    const x = a as { status: number; body: JsonValue; headers?: Record<string, string> };
    return { status: x.status, body: x.body, headers: { ...x.headers } };
  }
  return { status: 200, body: a as JsonValue, headers: {} };
}

function textResponse(status: number, body: string, headers: Record<string, string>): Response {
  return new Response(status === 204 || status === 304 ? null : body, {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });
}

export function createHost(options: HostOptions): SurfaceHost {
  return new SurfaceHost(options);
}

/** A request id for answers' headers: random, never logged, never part of state. */
export function requestId(prefix = 'req_'): string {
  if (typeof prefix !== 'string')
    throw new TwinError(
      'INVALID_ARGUMENT',
      `requestId(prefix): prefix must be text such as "req_", got ${describeValue(prefix)}`,
      { path: 'prefix' },
    );
  return `${prefix}${randomBytes(9).toString('base64url').replace(/[-_]/g, 'x')}`;
}
