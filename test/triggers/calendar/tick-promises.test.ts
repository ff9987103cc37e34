// The calendar source's smaller promises, each through the engine on a virtual clock: a tick fires
// subscriptions in trigger order whatever their ids, a tick before the cursor is a quiet no-op,
// the newest `max` occurrences fire even when the backlog spans several pages, a subscription's
// dueAt follows its cursor (and is null once the pattern has no more dates), a failed routine or
// an already-ingested occurrence is answered truthfully, and the arguments are checked with
// messages that say how to fix them.
import { afterEach, describe, expect, it } from 'vitest';
import { occurrenceId } from '../../../src/triggers/cron/shared-occurrence.js';
import { TwinError } from '../../../src/errors.js';
import type { JsonValue } from '../../../src/log/json-value.js';
import { OCCURRENCE_TYPE, subscriptionId } from '../../../src/triggers/calendar/subscription.js';
import {
  CalendarSource,
  DEFAULT_PENDING_LEASE_MS,
} from '../../../src/triggers/calendar/calendar-source.js';
import { TriggerEngine } from '../../../src/triggers/engine/engine.js';
import { createTriggerEnvelope } from '../../../src/triggers/envelope.js';
import { InProcessRunner } from '../../../src/triggers/in-process-runner.js';
import { tenantContext } from '../../../src/triggers/tenant-context.js';
import { recordId } from '../../../src/triggers/trigger-records.js';
import { VirtualClock } from '../../../src/world/clock.js';
import { openWorld, type World } from '../../../src/world/world.js';
import { expectRefusal } from '../support.js';

const TRIGGERS = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf'];
const opened: World[] = [];
afterEach(async () => {
  for (const w of opened.splice(0)) await w.close();
});

async function calendarHarness(
  start: string,
  routine: (input: unknown) => JsonValue | Promise<JsonValue> = () => null,
) {
  const clock = new VirtualClock(start);
  const world = openWorld({ root: ':memory:', clock, seed: 'tick-promises' });
  opened.push(world);
  const runner = new InProcessRunner(world).register('job', async (input) => routine(input));
  const engine = new TriggerEngine({ world, runner });
  for (const t of TRIGGERS)
    engine.registerRoute({ triggerId: t, routineId: 'job', buildInput: (e) => e.payload });
  const calendar = new CalendarSource();
  engine.registerSource(calendar);
  await engine.start();
  return { world, clock, engine, calendar };
}

const hourly = (triggerId: string) => ({
  tenantId: 'acme',
  triggerId,
  cron: '0 * * * *',
  timezone: 'UTC',
});

describe('tick order and quiet ticks', () => {
  it('fires the subscriptions of a tenant in trigger-id order, whatever order their ids sort in', async () => {
    const byId = [...TRIGGERS].sort((a, b) =>
      subscriptionId('acme', a) < subscriptionId('acme', b) ? -1 : 1,
    );
    expect(byId, 'the ids must sort differently for this test to mean anything').not.toEqual(
      TRIGGERS,
    );
    const { clock, calendar } = await calendarHarness('2026-03-01T00:00:00.000Z');
    for (const t of [...TRIGGERS].reverse()) await calendar.configure(hourly(t));
    await clock.set('2026-03-01T01:00:00.000Z');
    expect((await calendar.tick('acme')).fired.map((f) => f.triggerId)).toEqual(TRIGGERS);
  });

  it('a tick at or before the cursor fires nothing and refuses nothing', async () => {
    const { calendar } = await calendarHarness('2026-03-01T05:30:00.000Z');
    await calendar.configure(hourly('alpha'));
    for (const now of ['2026-03-01T05:30:00.000Z', '2026-03-01T02:00:00.000Z']) {
      expect(await calendar.tick('acme', Date.parse(now))).toEqual({
        tenantId: 'acme',
        now,
        fired: [],
        missed: [],
      });
    }
    expect((await calendar.subscription('acme', 'alpha'))!.cursor).toBe('2026-03-01T05:30:00.000Z');
  });

  it('now may be the epoch itself; anything but an integer from it to 9999-12-30 is refused', async () => {
    const { calendar } = await calendarHarness('2026-03-01T00:00:00.000Z');
    expect(await calendar.configure(hourly('alpha'), 0)).toMatchObject({
      cursor: '1970-01-01T00:00:00.000Z',
      nextAt: '1970-01-01T01:00:00.000Z',
    });
    const err = await expectRefusal(() => calendar.tick('acme', -1), 'INVALID_ARGUMENT', 'now');
    expect(err.message).toBe(
      'now must be epoch milliseconds, an integer from 0 (1970-01-01T00:00:00.000Z), or omitted to use the world clock',
    );
    // Past the calendar's last instant: named as `now`, not as the cron arithmetic's own parameter.
    const late = await expectRefusal(
      () => calendar.tick('acme', Date.parse('9999-12-31T00:00:00Z')),
      'INVALID_ARGUMENT',
      'now',
    );
    expect(late.message).toBe(
      'now (9999-12-31T00:00:00.000Z) is after 9999-12-30T00:00:00.000Z, the last instant calendars count occurrences at',
    );
    await expectRefusal(
      () => calendar.configure(hourly('beta'), Number.MAX_SAFE_INTEGER),
      'INVALID_ARGUMENT',
      'now',
    );
  });
});

describe('a backlog longer than one page', () => {
  it('all {max: 500}: the newest 500 of 1001 due occurrences fire, the 501 older are missed', async () => {
    const { calendar, clock } = await calendarHarness('2026-03-01T00:00:00.000Z');
    await calendar.configure({
      tenantId: 'acme',
      triggerId: 'alpha',
      cron: '* * * * *',
      timezone: 'UTC',
      catchUp: { kind: 'all', max: 500 },
    });
    await clock.advance(1001 * 60_000);
    const answer = await calendar.tick('acme');
    expect(answer.fired.map((f) => f.number)).toEqual(
      Array.from({ length: 500 }, (_, i) => 502 + i),
    );
    expect(answer.missed.map((m) => m.number)).toEqual(
      Array.from({ length: 501 }, (_, i) => 1 + i),
    );
    expect(answer.fired.every((f) => f.catchUp && f.status === 'triggered')).toBe(true);
  });
});

describe('a backlog whose older part is already on record (a cursor moved back)', () => {
  const M = 60_000;
  const T0 = Date.parse('2026-03-01T00:00:00.000Z');
  const minutely = (catchUp: { kind: 'skip' } | { kind: 'latest' }) => ({
    tenantId: 'acme',
    triggerId: 'alpha',
    cron: '* * * * *',
    timezone: 'UTC',
    catchUp,
  });

  /** Minutes from..1001 recorded by one tick, then the cursor moved back to T0. */
  async function recordedThenMovedBack(
    from: number,
    catchUp: { kind: 'skip' } | { kind: 'latest' },
  ) {
    const h = await calendarHarness('2026-03-01T00:00:00.000Z');
    await h.calendar.configure(minutely({ kind: 'latest' }), T0 + (from - 1) * M);
    await h.calendar.tick('acme', T0 + 1001 * M);
    await h.calendar.configure(minutely(catchUp), T0);
    return h;
  }

  it('pages that find everything on record do not make the one new occurrence a catch-up', async () => {
    for (const kind of ['skip', 'latest'] as const) {
      const { calendar } = await recordedThenMovedBack(1, { kind });
      const answer = await calendar.tick('acme', T0 + 1002 * M);
      expect(answer.missed).toEqual([]);
      expect(answer.fired.map((f) => [f.number, f.nominalAt, f.catchUp])).toEqual([
        [1002, '2026-03-01T16:42:00.000Z', false],
      ]);
    }
  });

  it('once a page recorded a missed occurrence, the rest is a catch-up: skip fires none, latest fires late', async () => {
    // Minute 1 was never recorded: the first page misses it, so the tick is catching up.
    const skip = await recordedThenMovedBack(2, { kind: 'skip' });
    const skipped = await skip.calendar.tick('acme', T0 + 1002 * M);
    expect(skipped.fired).toEqual([]);
    expect(skipped.missed.map((m) => [m.nominalAt, m.reason])).toEqual([
      ['2026-03-01T00:01:00.000Z', 'catch-up:skip'],
      ['2026-03-01T16:42:00.000Z', 'catch-up:skip'],
    ]);
    const latest = await recordedThenMovedBack(2, { kind: 'latest' });
    const late = await latest.calendar.tick('acme', T0 + 1002 * M);
    expect(late.missed.map((m) => m.nominalAt)).toEqual(['2026-03-01T00:01:00.000Z']);
    expect(late.fired.map((f) => [f.nominalAt, f.catchUp])).toEqual([
      ['2026-03-01T16:42:00.000Z', true],
    ]);
  });
});

describe('the lease of a pending occurrence', () => {
  it('a deciding tick holds it for pendingLeaseMs; after that one tick reclaims it for as long again', async () => {
    const { calendar, clock, engine, world } = await calendarHarness(
      '2026-03-01T00:00:00.000Z',
      () => new Promise(() => {}),
    );
    await calendar.configure(hourly('alpha'));
    await clock.set('2026-03-01T01:00:00.000Z');
    void calendar.tick('acme'); // hangs inside the routine
    const id = occurrenceId('acme', 'alpha', '2026-03-01T01:00:00.000Z');
    const twin = world.twin('triggers');
    await expect
      .poll(async () => (await twin.get(OCCURRENCE_TYPE, id))?.fields.state)
      .toBe('pending');
    expect((await twin.get(OCCURRENCE_TYPE, id))!.fields).toMatchObject({
      leaseUntil: '2026-03-01T01:01:00.000Z',
      dueAt: '2026-03-01T01:01:00.000Z',
    });
    expect(await calendar.tick('acme', Date.parse('2026-03-01T01:00:59.999Z'))).toMatchObject({
      fired: [],
    });
    // Two ticks after the lease: one reclaims and fires it, the other finds it taken.
    const late = Date.parse('2026-03-01T01:01:00.000Z');
    const [a, b] = await Promise.all([calendar.tick('acme', late), calendar.tick('acme', late)]);
    expect([...a.fired, ...b.fired]).toMatchObject([
      { number: 1, status: 'in_progress', routineResult: null },
    ]);
    const reclaim = (await twin.entriesFor(OCCURRENCE_TYPE, id)).find(
      (e) => e.operation === 'calendar.reclaim',
    );
    // The reclaim moves the fence: the hung tick, should it ever finish, no longer holds it.
    expect(reclaim?.fields).toEqual({
      leaseUntil: '2026-03-01T01:02:00.000Z',
      dueAt: '2026-03-01T01:02:00.000Z',
      fence: 1,
    });
    await engine.stop({ graceMs: 0 });
  });
});

describe('calendars under a context of another tenant', () => {
  it('each refusal says what the context tried to do', async () => {
    const { calendar } = await calendarHarness('2026-03-01T00:00:00.000Z');
    const globex = tenantContext({ tenantId: 'globex', may: ['configure', 'read', 'ingest'] });
    for (const [doing, call] of [
      ['configure calendars', () => calendar.configure(hourly('alpha'), undefined, globex)],
      ['read the calendars', () => calendar.subscription('acme', 'alpha', globex)],
      ['fire the calendars', () => calendar.tick('acme', undefined, globex)],
    ] as const) {
      const err = await expectRefusal(call, 'TENANT_FORBIDDEN');
      expect(err.message).toContain(`cannot ${doing} of tenant "acme"`);
    }
  });
});

describe("a subscription's due time", () => {
  it('is its next occurrence after the cursor, moving with each tick', async () => {
    const { calendar, clock } = await calendarHarness('2026-03-01T12:00:00.000Z');
    await calendar.configure(hourly('alpha'));
    expect((await calendar.subscription('acme', 'alpha'))!.dueAt).toBe('2026-03-01T13:00:00.000Z');
    await clock.set('2026-03-01T13:20:00.000Z');
    await calendar.tick('acme');
    expect((await calendar.subscription('acme', 'alpha'))!.dueAt).toBe('2026-03-01T14:00:00.000Z');
  });

  it('is null, as is nextAt, once the pattern has no later date; ticking then is harmless', async () => {
    const { calendar, clock } = await calendarHarness('2999-06-01T00:00:00.000Z');
    const leap = { tenantId: 'acme', triggerId: 'alpha', cron: '0 0 29 2 *', timezone: 'UTC' };
    expect(await calendar.configure(leap)).toMatchObject({ nextAt: null });
    expect((await calendar.subscription('acme', 'alpha'))!.dueAt).toBeNull();
    await clock.set('2999-07-01T00:00:00.000Z');
    expect(await calendar.tick('acme')).toMatchObject({ fired: [], missed: [] });
    expect((await calendar.subscription('acme', 'alpha'))!.dueAt).toBeNull();
  });

  it('an unknown trigger has no subscription', async () => {
    const { calendar } = await calendarHarness('2026-03-01T00:00:00.000Z');
    expect(await calendar.subscription('acme', 'alpha')).toBeUndefined();
  });
});

describe('what a fired occurrence answers', () => {
  it('a routine that fails: failed, ROUTINE_FAILED, with the record it failed on', async () => {
    const { calendar, clock, engine } = await calendarHarness('2026-03-01T00:00:00.000Z', () => {
      throw new Error('boom');
    });
    await calendar.configure(hourly('alpha'));
    await clock.set('2026-03-01T01:00:00.000Z');
    const key = 'calendar:alpha@2026-03-01T01:00:00.000Z';
    expect((await calendar.tick('acme')).fired).toMatchObject([
      { status: 'failed', error: 'ROUTINE_FAILED', recordId: recordId('acme', key) },
    ]);
    expect((await engine.record('acme', key))!.state).toBe('failed');
  });

  it('an occurrence already ingested under its key (a crash after ingest): duplicate, with the first result', async () => {
    const { calendar, clock, engine } = await calendarHarness(
      '2026-03-01T00:00:00.000Z',
      (input) => ({ echo: (input as { occurrence: number }).occurrence }),
    );
    await calendar.configure(hourly('alpha'));
    const nominalAt = '2026-03-01T01:00:00.000Z';
    const first = await engine.ingest(
      createTriggerEnvelope({
        tenantId: 'acme',
        scopeId: 'acme',
        source: { kind: 'calendar', provider: 'cron' },
        triggerId: 'alpha',
        eventId: 'first-ingest',
        dedupeKey: `calendar:alpha@${nominalAt}`,
        occurredAt: nominalAt,
        scheduledAt: nominalAt,
        payload: {
          occurrence: 1,
          nominalAt,
          wallTime: '2026-03-01T01:00',
          utcOffsetMinutes: 0,
          dst: 'normal',
          dstRule: null,
          timezone: 'UTC',
          cron: '0 * * * *',
          catchUp: false,
        },
      }),
    );
    expect(first).toMatchObject({ status: 'triggered', routineResult: { echo: 1 } });
    await clock.set(nominalAt);
    expect((await calendar.tick('acme')).fired).toMatchObject([
      { number: 1, status: 'duplicate', error: null, routineResult: { echo: 1 } },
    ]);
  });

  it('an occurrence whose key was taken by another payload: refused, PAYLOAD_CONFLICT', async () => {
    const { calendar, clock, engine } = await calendarHarness('2026-03-01T00:00:00.000Z');
    await calendar.configure(hourly('alpha'));
    const nominalAt = '2026-03-01T01:00:00.000Z';
    await engine.ingest(
      createTriggerEnvelope({
        tenantId: 'acme',
        scopeId: 'acme',
        source: { kind: 'calendar', provider: 'cron' },
        triggerId: 'alpha',
        eventId: 'squatter',
        dedupeKey: `calendar:alpha@${nominalAt}`,
        occurredAt: nominalAt,
        scheduledAt: nominalAt,
        payload: { other: true },
      }),
    );
    await clock.set(nominalAt);
    expect((await calendar.tick('acme')).fired).toMatchObject([
      { number: 1, status: 'refused', error: 'PAYLOAD_CONFLICT', routineResult: null },
    ]);
  });
});

describe('calendar source arguments', () => {
  it('pendingLeaseMs is a non-negative integer (0 allowed), 60 s by default', () => {
    expect(new CalendarSource().pendingLeaseMs).toBe(DEFAULT_PENDING_LEASE_MS);
    expect(new CalendarSource({ pendingLeaseMs: 0 }).pendingLeaseMs).toBe(0);
    for (const bad of [-1, 1.5, Number.NaN]) {
      let caught: unknown;
      try {
        new CalendarSource({ pendingLeaseMs: bad });
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(TwinError);
      expect(caught).toMatchObject({
        code: 'INVALID_ARGUMENT',
        path: 'pendingLeaseMs',
        message: 'pendingLeaseMs must be a non-negative integer number of milliseconds',
      });
    }
  });

  it('use before the source is registered names the call and the fix', async () => {
    const loose = new CalendarSource();
    for (const [what, call] of [
      ['configure', () => loose.configure(hourly('alpha'))],
      ['subscription', () => loose.subscription('acme', 'alpha')],
      ['tick', () => loose.tick('acme')],
    ] as const) {
      const err = await expectRefusal(call, 'ENGINE_STOPPED');
      expect(err.message).toBe(
        `calendar.${what}: register this source with engine.registerSource() and start the engine first`,
      );
    }
  });
});
