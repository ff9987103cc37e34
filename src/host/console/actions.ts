// The console's actions. Each is the same atomic action its CLI command makes, through the same
// function, so it is refused the same way (the same TwinError code and message): redeliver
// (`twinworld redeliver`), endpoint disable/enable (`twinworld endpoints`), dispatch cancel
// (`twinworld dispatches cancel`), schedule pause/resume (`twinworld schedules`), and moving a
// virtual world clock. See docs/console.md.
import { isTwinError, TwinError } from '../../errors.js';
import type { Dispatcher } from '../../events/dispatcher.js';
import { findEndpoint, setEndpointEnabled } from '../../events/endpoint-lookup.js';
import { cancelDispatch } from '../../triggers/deferred/operations.js';
import { Schedules } from '../../triggers/schedules/schedules.js';
import { isoAt, LAST_MS, VirtualClock } from '../../world/clock.js';
import type { World } from '../../world/world.js';

const ACTION_NAMES = [
  'redeliver',
  'endpoint.disable',
  'endpoint.enable',
  'dispatch.cancel',
  'schedule.pause',
  'schedule.resume',
  'clock.advance',
] as const;
type ActionName = (typeof ACTION_NAMES)[number];

function text(body: Record<string, unknown>, key: string, required: true): string;
function text(body: Record<string, unknown>, key: string, required: false): string | undefined;
function text(body: Record<string, unknown>, key: string, required: boolean): string | undefined {
  const value = body[key];
  if (value === undefined || value === null || value === '') {
    if (!required) return undefined;
    throw new TwinError('INVALID_ARGUMENT', `the action needs "${key}"`, { path: key });
  }
  if (typeof value !== 'string')
    throw new TwinError('INVALID_ARGUMENT', `"${key}" must be a string, got ${typeof value}`, {
      path: key,
    });
  return value;
}

/** An http(s) URL, as `--to` must be. */
function targetUrl(raw: string): string {
  let parsed: URL | undefined;
  try {
    parsed = new URL(raw);
  } catch {
    parsed = undefined;
  }
  if (parsed === undefined || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:'))
    throw new TwinError(
      'INVALID_ARGUMENT',
      `"to" must be an http(s) URL such as http://127.0.0.1:3000/webhooks, got "${raw}"`,
      { path: 'to' },
    );
  return raw;
}

function revision(body: Record<string, unknown>): { expectedRevision?: number } {
  const r = body.revision;
  if (r === undefined || r === null || r === '') return {};
  if (typeof r !== 'number' || !Number.isSafeInteger(r) || r < 0)
    throw new TwinError('INVALID_ARGUMENT', '"revision" must be a non-negative integer', {
      path: 'revision',
    });
  return { expectedRevision: r };
}

/**
 * Runs a shared action, naming the body's key in a refusal's path where the shared function names
 * its own parameter (`scheduleId`, `id`): the code and message stay the CLI's, the path points at
 * what the caller sent.
 */
async function naming<T>(
  keys: Readonly<Record<string, string>>,
  run: () => Promise<T>,
): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (!isTwinError(error) || error.path === undefined || !Object.hasOwn(keys, error.path))
      throw error;
    throw new TwinError(error.code, error.message, {
      path: keys[error.path]!,
      ...(error.details === undefined ? {} : { details: error.details }),
      cause: error,
    });
  }
}

/** Runs one named action; what it answers is shown on the page. */
export async function runAction(
  world: World,
  dispatcher: Dispatcher,
  name: string,
  body: Record<string, unknown>,
  tenant: string,
): Promise<unknown> {
  switch (name as ActionName) {
    case 'redeliver': {
      const to = text(body, 'to', false);
      return dispatcher.redeliver(
        text(body, 'delivery', true),
        to === undefined ? {} : { to: targetUrl(to) },
      );
    }
    case 'endpoint.disable':
    case 'endpoint.enable': {
      const endpoint = await findEndpoint(
        world,
        text(body, 'endpoint', true),
        text(body, 'pack', false),
      );
      return setEndpointEnabled(world, endpoint, name === 'endpoint.enable');
    }
    case 'dispatch.cancel': {
      const id = text(body, 'dispatch', true);
      return naming({ id: 'dispatch' }, () => cancelDispatch(world, id));
    }
    case 'schedule.pause':
    case 'schedule.resume': {
      const schedules = new Schedules({ world });
      const id = text(body, 'schedule', true);
      const expected = revision(body);
      return naming({ scheduleId: 'schedule', expectedRevision: 'revision' }, () =>
        name === 'schedule.pause'
          ? schedules.pause(tenant, id, expected)
          : schedules.resume(tenant, id, expected),
      );
    }
    case 'clock.advance': {
      const ms = body.ms;
      if (typeof ms !== 'number' || !Number.isSafeInteger(ms) || ms <= 0)
        throw new TwinError(
          'INVALID_ARGUMENT',
          '"ms" must be a positive whole number of milliseconds',
          {
            path: 'ms',
          },
        );
      if (!(world.clock instanceof VirtualClock))
        throw new TwinError(
          'CLOCK_NOT_VIRTUAL',
          'this world runs on the real clock, which no one can advance; start the console with --clock ISO (or mount it on a host whose world has a VirtualClock)',
          { path: 'ms' },
        );
      // Past the last instant a date can hold, every time the world writes (and the console
      // shows) would be unwritable: refused, not moved into a clock that breaks every read.
      const room = LAST_MS - world.clock.now();
      if (ms > room)
        throw new TwinError(
          'INVALID_ARGUMENT',
          `"ms" would move the clock past ${isoAt(LAST_MS)}, the last time a date can hold; advance by at most ${room} ms`,
          { path: 'ms' },
        );
      await world.clock.advance(ms);
      return { now: isoAt(world.clock.now()) };
    }
    default:
      throw new TwinError(
        'UNKNOWN_ACTION',
        `no console action "${name}"; actions: ${ACTION_NAMES.join(', ')}`,
        { path: 'action' },
      );
  }
}
