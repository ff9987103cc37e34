// /_twinworld/health: readiness that tells the truth. Orchestrators and `twinworld up` users poll
// it, so it answers 200 only once the world's store has answered a cheap read (the names of its
// twins: one query on PostgreSQL, a folder listing on SQLite), and 503 with the control plane's
// typed refusal when the store failed, or did not answer within a bound — a store that hangs must
// not hang the probe too. The refusal names the store and how to fix it, never the driver's words,
// which can carry its codes and, on some drivers, the connection URL. See docs/host.md.
import { ERROR_CATALOG } from '../../error-catalog.js';
import { isTwinError, TwinError, type TwinErrorCode } from '../../errors.js';
import { storageRefusal } from '../../world/root.js';
import type { World } from '../../world/world.js';
import { jsonResponse, type ControlHandler } from './respond.js';

/** How long the store has to answer a probe's read by default (a probe's own timeout is often 1–2 s). */
const HEALTH_TIMEOUT_MS = 2_000;

/**
 * How to fix what a probe meets most, in a probe's terms; other codes take the catalog's fix (the
 * catalog's words for these two point at the store's own message, which a probe is not shown).
 */
const PROBE_FIX: Partial<Record<TwinErrorCode, string>> = {
  STORE_UNREACHABLE:
    'check that the database server runs and listens there, and that the store URL names the right host and port; this answer turns 200 once it answers again',
  STORE_FAILED:
    'for a SQLite root, check that its folder and twins/ in it are still there and readable, and run `twinworld verify <twin>` for a damaged file',
};

/** A store that did not answer in time: a refusal of its own, told apart from one the store gave. */
class NoAnswer extends Error {}

/** Refuses a bound that would make every probe fail, or never end, at construction. */
export function checkHealthTimeout(value: unknown): number {
  if (value === undefined) return HEALTH_TIMEOUT_MS;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > 2 ** 31 - 1)
    throw new TwinError(
      'INVALID_ARGUMENT',
      `createHost: healthTimeoutMs must be a whole number of milliseconds from 1 to 2147483647, got ${String(value)}`,
      { path: 'healthTimeoutMs' },
    );
  return value;
}

/**
 * Where the store is, for the refusal: a SQLite root's folder, or the host and port a PostgreSQL
 * refusal names in its details — never the root of another backend, which may be a URL with its
 * password.
 */
function storeAt(world: World, error: unknown): string {
  if (world.backend.kind === 'sqlite') return ` at ${world.root}`;
  const details = isTwinError(error) ? error.details : undefined;
  const host = details?.host;
  const port = details?.port;
  return typeof host === 'string' && typeof port === 'number' ? ` at ${host}:${port}` : '';
}

// A cache between the probe and the host must not answer for the store.
const FRESH = { 'cache-control': 'no-store' };

function refusal(code: TwinErrorCode, message: string): Response {
  return jsonResponse(
    503,
    { ok: false, error: { code, message, path: 'store' } },
    { ...FRESH, 'retry-after': '1' },
  );
}

export function healthControl(world: World, timeoutMs: number): ControlHandler {
  // Probes that arrive while a read is out share it: a hung store gets one read per bound, not one
  // per probe, so probes cannot take every pooled connection while it hangs.
  let pending: Promise<string[]> | undefined;
  const read = (): Promise<string[]> => {
    if (pending !== undefined) return pending;
    const started = world.twinNames();
    const settled = (): void => {
      if (pending === started) pending = undefined;
    };
    started.then(settled, settled);
    return (pending = started);
  };
  return async () => {
    const kind = world.backend.kind;
    if (world.isClosed)
      return refusal(
        'WORLD_CLOSED',
        `the host's world is closed (the host is stopping or was stopped); start it again`,
      );
    let timer: NodeJS.Timeout | undefined;
    const shared = read();
    try {
      const twins = await Promise.race([
        shared,
        new Promise<never>((_, fail) => {
          timer = setTimeout(() => fail(new NoAnswer()), timeoutMs);
        }),
      ]);
      return jsonResponse(200, { ok: true, store: kind, twins: twins.length }, FRESH);
    } catch (error) {
      if (error instanceof NoAnswer) {
        // Dropped, so the next probe asks again rather than waiting on a read that may never end.
        if (pending === shared) pending = undefined;
        return refusal(
          'STORE_UNREACHABLE',
          `the world's ${kind} store${storeAt(world, undefined)} did not answer a read of its twins within ${timeoutMs} ms: check that the database server runs and is not overloaded, and that the world's --store (or --root) names the right one`,
        );
      }
      // The typed refusal's code says what went wrong; its text is the driver's and stays in the log.
      world.reportError(error, 'GET /_twinworld/health');
      const code: TwinErrorCode = isTwinError(error)
        ? error.code
        : (storageRefusal(error, world.root)?.code ?? 'STORE_FAILED');
      return refusal(
        code,
        `the world's ${kind} store${storeAt(world, error)} could not answer a read of its twins: ${PROBE_FIX[code] ?? ERROR_CATALOG[code].fix} (the host's log has the store's own reason)`,
      );
    } finally {
      clearTimeout(timer);
    }
  };
}
