// /_twinworld/clock: read the world clock, or move it for every vendor at once. Moving it stops at
// each instant a surface's clock participant has work due (Stripe's renewals and invoices), runs
// that work there, and lets scheduled tasks (webhook retries, calendars) run at their own
// instants in between, earliest first — then sends what was queued.
import { describeValue, TwinError } from '../../errors.js';
import { isoAt, VirtualClock } from '../../world/clock.js';
import type { ClockParticipant } from '../surface/declaration.js';
import type { World } from '../../world/world.js';
import { controlInput, jsonResponse, type ControlHandler } from './respond.js';

/** What moving the clock needs of a host. */
export interface ClockHost {
  readonly world: World;
  clockParticipants(): ClockParticipant[];
  /** Hands queued deliveries to the dispatcher. */
  sendQueued(): void;
  /** Resolves once the dispatcher has nothing in flight. */
  idle(): Promise<void>;
}

function clockState(host: ClockHost) {
  const now = host.world.clock.now();
  return { now_ms: now, now: isoAt(now), virtual: host.world.clock instanceof VirtualClock };
}

function target(input: Record<string, unknown>, now: number): number {
  if (input.advance_ms !== undefined && input.to !== undefined)
    throw new TwinError('INVALID_ARGUMENT', 'give either advance_ms or to, not both', {
      path: 'advance_ms',
    });
  if (input.advance_ms !== undefined) {
    const ms = Number(input.advance_ms);
    if (!Number.isFinite(ms) || ms < 0)
      throw new TwinError(
        'INVALID_ARGUMENT',
        `advance_ms must be a non-negative number of milliseconds, got ${JSON.stringify(input.advance_ms)}`,
        {
          path: 'advance_ms',
        },
      );
    return now + ms;
  }
  if (input.to !== undefined) {
    const to =
      typeof input.to === 'number' || /^\d+$/.test(String(input.to))
        ? Number(input.to)
        : Date.parse(String(input.to));
    if (!Number.isFinite(to))
      throw new TwinError(
        'INVALID_ARGUMENT',
        `to must be epoch ms or an ISO 8601 time, got ${JSON.stringify(input.to)}`,
        {
          path: 'to',
        },
      );
    if (to < now)
      throw new TwinError(
        'INVALID_ARGUMENT',
        `to (${isoAt(to)}) is before the world clock (${isoAt(now)}); a world clock never goes back`,
        {
          path: 'to',
        },
      );
    return to;
  }
  throw new TwinError(
    'INVALID_ARGUMENT',
    'give advance_ms (milliseconds) or to (epoch ms or ISO 8601 time)',
    {
      path: 'advance_ms',
    },
  );
}

/** Moves the world clock to `to`, stopping wherever a participant has work due. */
export async function advanceWorld(host: ClockHost, to: number): Promise<void> {
  if (typeof (host as Partial<ClockHost> | null | undefined)?.clockParticipants !== 'function')
    throw new TwinError(
      'INVALID_ARGUMENT',
      `advanceWorld(host, to): host must be a host from createHost(...), got ${describeValue(host)}`,
      { path: 'host' },
    );
  // A NaN or text bound compares false with every due time: all work ever scheduled ran, and
  // the clock went to the last of it.
  if (typeof to !== 'number' || !Number.isFinite(to))
    throw new TwinError(
      'INVALID_ARGUMENT',
      `advanceWorld(host, to): to must be epoch milliseconds (e.g. world.clock.now() + 60_000), got ${describeValue(to)}`,
      { path: 'to' },
    );
  const clock = host.world.clock;
  if (!(clock instanceof VirtualClock))
    throw new TwinError(
      'INVALID_ARGUMENT',
      'the world clock is real time and cannot be moved; start the host on a virtual clock (twinworld up does by default)',
      { path: 'clock' },
    );
  for (let steps = 0; steps < 100_000; steps++) {
    let due: number | undefined;
    for (const p of host.clockParticipants()) {
      const at = await p.dueAt(host.world);
      if (at !== undefined && (due === undefined || at < due)) due = at;
    }
    if (due === undefined || due > to) break;
    if (due > clock.now()) await clock.set(due);
    let ran = 0;
    for (const p of host.clockParticipants()) ran += await p.runDue(host.world);
    await host.idle();
    if (ran === 0)
      throw new TwinError(
        'INVALID_ARGUMENT',
        `work due at ${isoAt(due)} could not run; the clock stopped there`,
        {
          path: 'to',
        },
      );
  }
  if (to > clock.now()) await clock.set(to);
  host.sendQueued();
}

export function clockControl(host: ClockHost): ControlHandler {
  return async (request, _url, rest) => {
    if (rest !== '' && rest !== '/')
      return jsonResponse(404, {
        error: { code: 'UNKNOWN_CONTROL', message: 'only /_twinworld/clock' },
      });
    if (request.method === 'GET') return jsonResponse(200, clockState(host));
    if (request.method !== 'POST')
      return jsonResponse(405, {
        error: {
          code: 'INVALID_ARGUMENT',
          message: 'GET reads the clock; POST {advance_ms | to} moves it',
        },
      });
    const input = await controlInput(request);
    await advanceWorld(host, target(input, host.world.clock.now()));
    return jsonResponse(200, clockState(host));
  };
}
