// The console as a WHATWG fetch handler: the page, its read API, its actions and a server-sent
// event stream that follows the store's log heads. Mounted at a base path (`/` for `twinworld
// console`, `/_twinworld/console` on the vendor host); every request needs the token printed at
// start. See docs/console.md.
import { ERROR_CATALOG } from '../../error-catalog.js';
import { isTwinError, TwinError, type TwinErrorCode } from '../../errors.js';
import { DELIVERY_STATES } from '../../events/delivery-records.js';
import type { Dispatcher } from '../../events/dispatcher.js';
import { DEFAULT_TENANT } from '../serve/config.js';
import type { World } from '../../world/world.js';
import { runAction } from './actions.js';
import { watchHeads, type HeadWatcher } from './heads.js';
import { consolePage } from './page.js';
import {
  attemptsView,
  clockView,
  deliveriesView,
  dispatchesView,
  hashView,
  historyView,
  resourcesView,
  schedulesView,
  triggersView,
  twinsView,
} from './snapshot.js';
import { tokenMatches } from './token.js';

export interface ConsoleOptions {
  readonly world: World;
  /** Sends redeliveries; the caller owns it (and closes it). */
  readonly dispatcher: Dispatcher;
  readonly token: string;
  /** Where the console is mounted, without a trailing slash; '' (default) for the root. */
  readonly basePath?: string;
  /** How often the log heads are read for the live stream (wall ms, default 100). */
  readonly pollMs?: number;
  /** The tenant whose schedules are shown and acted on (default "default"). */
  readonly tenant?: string;
}

export interface ConsoleHandler {
  fetch(request: Request): Promise<Response>;
  /** Ends the live streams and stops following the heads. */
  close(): Promise<void>;
}

const SECURITY_HEADERS = {
  // Nothing is fetched from anywhere but this origin; scripts and styles are the page's own.
  'content-security-policy':
    "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};

function json(status: number, value: unknown): Response {
  return new Response(JSON.stringify(value), {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', ...SECURITY_HEADERS },
  });
}

/** The catalog's status for a refusal; input the console passed on is the caller's, so 400. */
function statusFor(code: TwinErrorCode): number {
  const status = ERROR_CATALOG[code].status;
  return status >= 400 && status < 500 ? status : 400;
}

function param(url: URL, name: string): string | undefined {
  const v = url.searchParams.get(name);
  return v === null || v === '' ? undefined : v;
}

/** A parameter the read cannot go without: its absence is the caller's mistake (400), named. */
function required(url: URL, name: string, example: string): string {
  const v = param(url, name);
  if (v === undefined)
    throw new TwinError(
      'INVALID_ARGUMENT',
      `${url.pathname.replace(/^.*\/api\//, 'api/')} needs the ${name} parameter, e.g. ?${name}=${example}`,
      { path: name },
    );
  return v;
}

/** `state` as the CLI's `deliveries --state` takes it: one of the states, or refused naming them. */
function deliveryState(url: URL): string | undefined {
  const state = param(url, 'state');
  if (state !== undefined && !(DELIVERY_STATES as readonly string[]).includes(state))
    throw new TwinError(
      'INVALID_ARGUMENT',
      `state must be one of ${DELIVERY_STATES.join(', ')}, got ${JSON.stringify(state)}`,
      { path: 'state', details: { allowed: [...DELIVERY_STATES] } },
    );
  return state;
}

export function createConsoleHandler(options: ConsoleOptions): ConsoleHandler {
  const { world, dispatcher, token } = options;
  const base = (options.basePath ?? '').replace(/\/+$/, '');
  const tenant = options.tenant ?? DEFAULT_TENANT;
  const heads: HeadWatcher = watchHeads(world, { pollMs: options.pollMs ?? 100 });
  const streams = new Set<() => void>();

  const unauthorized = (): Response =>
    json(401, {
      error: 'CONSOLE_TOKEN',
      message:
        'the console needs the token `twinworld console` printed at start: open the URL it printed, or send it as x-twinworld-token',
    });

  const events = (request: Request): Response => {
    const encoder = new TextEncoder();
    let stop = (): void => {};
    // Each event is the whole heads snapshot, so a client that reads slowly needs only the
    // newest: while the stream's queue is full the latest is held, and sent when it drains.
    let held: unknown;
    let push = (_data: unknown): void => {};
    const stream = new ReadableStream<Uint8Array>({
      start: async (controller) => {
        push = (data: unknown): void => {
          try {
            controller.enqueue(encoder.encode(`event: heads\ndata: ${JSON.stringify(data)}\n\n`));
          } catch {
            stop();
          }
        };
        const send = (data: unknown): void => {
          if ((controller.desiredSize ?? 1) > 0) push(data);
          else held = data;
        };
        const off = heads.subscribe((now) => send(now));
        // A comment line now and then keeps proxies and idle timers from closing the stream.
        const keep = setInterval(() => {
          if ((controller.desiredSize ?? 1) <= 0) return;
          try {
            controller.enqueue(encoder.encode(': keep-alive\n\n'));
          } catch {
            stop();
          }
        }, 15_000);
        stop = () => {
          off();
          clearInterval(keep);
          streams.delete(stop);
          try {
            controller.close();
          } catch {
            // already closed by the client
          }
        };
        streams.add(stop);
        request.signal.addEventListener('abort', () => stop(), { once: true });
        send(await heads.current());
      },
      pull: () => {
        if (held === undefined) return;
        const data = held;
        held = undefined;
        push(data);
      },
      cancel: () => stop(),
    });
    return new Response(stream, {
      headers: {
        'content-type': 'text/event-stream; charset=utf-8',
        connection: 'keep-alive',
        ...SECURITY_HEADERS,
      },
    });
  };

  const read = async (path: string, url: URL): Promise<Response | undefined> => {
    switch (path) {
      case '/api/overview':
        return json(200, { clock: await clockView(world), twins: await twinsView(world), tenant });
      case '/api/deliveries':
        return json(
          200,
          await deliveriesView(world, {
            ...(deliveryState(url) === undefined ? {} : { state: deliveryState(url)! }),
            ...(param(url, 'event') === undefined ? {} : { event: param(url, 'event')! }),
            ...(param(url, 'endpoint') === undefined ? {} : { endpoint: param(url, 'endpoint')! }),
            ...(param(url, 'pack') === undefined ? {} : { pack: param(url, 'pack')! }),
          }),
        );
      case '/api/attempts':
        return json(200, await attemptsView(world, dispatcher, required(url, 'delivery', 'dlv_…')));
      case '/api/hash':
        return json(200, await hashView(world, required(url, 'twin', 'stripe')));
      case '/api/resources':
        return json(
          200,
          await resourcesView(world, required(url, 'twin', 'stripe'), param(url, 'type')),
        );
      case '/api/history':
        return json(
          200,
          await historyView(
            world,
            required(url, 'twin', 'stripe'),
            required(url, 'type', 'customer'),
            required(url, 'id', 'cus_…'),
          ),
        );
      case '/api/triggers':
        return json(200, await triggersView(world));
      case '/api/schedules':
        return json(200, await schedulesView(world, tenant));
      case '/api/dispatches':
        return json(200, await dispatchesView(world));
      default:
        return undefined;
    }
  };

  const fetch = async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    if (url.pathname !== base && !url.pathname.startsWith(`${base}/`))
      return json(404, { error: 'NOT_FOUND', message: `not under ${base || '/'}` });
    // Relative links on the page need the trailing slash: /_twinworld/console → /_twinworld/console/
    if (base !== '' && url.pathname === base)
      return new Response(null, { status: 308, headers: { location: `${base}/${url.search}` } });
    const path = url.pathname.slice(base.length) || '/';
    const headerToken = request.headers.get('x-twinworld-token');
    try {
      if (request.method === 'POST' && path.startsWith('/api/actions/')) {
        // Actions take the token from a header only: a page on another origin cannot set one.
        if (!tokenMatches(token, headerToken)) return unauthorized();
        let body: unknown;
        try {
          body = await request.json();
        } catch {
          body = undefined;
        }
        if (body === null || typeof body !== 'object' || Array.isArray(body))
          return json(400, {
            error: 'INVALID_ARGUMENT',
            message: 'an action takes a JSON object body',
          });
        let name: string;
        try {
          name = decodeURIComponent(path.slice('/api/actions/'.length));
        } catch {
          return json(400, {
            error: 'UNKNOWN_ACTION',
            message: `the action name in ${path} is not valid percent-encoding`,
          });
        }
        const answer = await runAction(
          world,
          dispatcher,
          name,
          body as Record<string, unknown>,
          tenant,
        );
        return json(200, { ok: true, answer });
      }
      if (request.method !== 'GET' && request.method !== 'HEAD')
        return json(405, {
          error: 'METHOD_NOT_ALLOWED',
          message: `${request.method} ${path}: the console reads with GET, and acts with POST api/actions/NAME`,
        });
      if (!tokenMatches(token, headerToken ?? url.searchParams.get('token'))) return unauthorized();
      if (path.startsWith('/api/actions/'))
        return json(405, {
          error: 'METHOD_NOT_ALLOWED',
          message: `${request.method} ${path}: an action takes POST with a JSON object body and the token in x-twinworld-token`,
        });
      if (path === '/' || path === '/index.html')
        return new Response(consolePage(), {
          headers: { 'content-type': 'text/html; charset=utf-8', ...SECURITY_HEADERS },
        });
      if (path === '/events') return events(request);
      const answer = await read(path, url);
      return answer ?? json(404, { error: 'NOT_FOUND', message: `no console route ${path}` });
    } catch (error) {
      if (isTwinError(error))
        return json(statusFor(error.code), {
          error: error.code,
          message: error.message,
          ...(error.path === undefined ? {} : { path: error.path }),
        });
      world.reportError(error, `console ${path}`);
      return json(500, {
        error: 'INTERNAL',
        message: 'the console could not answer; the error was reported where the console runs',
      });
    }
  };

  return {
    fetch,
    async close() {
      for (const stop of [...streams]) stop();
      await heads.close();
    },
  };
}
