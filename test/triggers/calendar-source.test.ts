// The calendar source through the engine, on the world's virtual clock: numbered occurrences
// identified by trigger + nominal instant, a repeated or concurrent tick never firing one twice,
// DST rules recorded per occurrence, and catch-up after downtime recording every missed one.
import { rmSync } from 'node:fs';
import { occurrenceId } from '../../src/triggers/cron/shared-occurrence.js';
import { afterAll, describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/world/clock.js';
import { CalendarSource } from '../../src/triggers/calendar/calendar-source.js';
import { type OccurrenceFields } from '../../src/triggers/calendar/occurrence-record.js';
import {
  OCCURRENCE_TYPE,
  SUBSCRIPTION_TYPE,
  subscriptionId,
} from '../../src/triggers/calendar/subscription.js';
import { TriggerEngine } from '../../src/triggers/engine/engine.js';
import { InProcessRunner } from '../../src/triggers/in-process-runner.js';
import { recordId, RECORD_TYPE } from '../../src/triggers/trigger-records.js';
import { openWorld, type World } from '../../src/world/world.js';
import { tempDir } from '../support/backends.js';
import { collect, expectRefusal } from './support.js';

const roots: string[] = [];
afterAll(() => roots.forEach((r) => rmSync(r, { recursive: true, force: true })));

interface Cal {
  world: World;
  clock: VirtualClock;
  engine: TriggerEngine;
  calendar: CalendarSource;
  runs: { triggerId: string; payload: unknown }[];
}

async function calendarHarness(
  start: string,
  options: { root?: string; clock?: VirtualClock; hang?: boolean } = {},
): Promise<Cal> {
  const clock = options.clock ?? new VirtualClock(start);
  const world = openWorld({ root: options.root ?? ':memory:', clock, seed: 'calendar' });
  const runs: Cal['runs'] = [];
  const runner = new InProcessRunner(world).register('job', async (input, ctx) => {
    runs.push({ triggerId: ctx.envelope.triggerId, payload: input });
    if (options.hang === true) return new Promise(() => {});
    return { ran: ctx.envelope.scheduledAt };
  });
  const engine = new TriggerEngine({ world, runner });
  for (const t of ['hourly', 'nightly', 'minutely', 'ny', 'london', 'lhi'])
    engine.registerRoute({ triggerId: t, routineId: 'job', buildInput: (e) => e.payload });
  const calendar = new CalendarSource();
  engine.registerSource(calendar);
  await engine.start();
  return { world, clock, engine, calendar, runs };
}

const occurrences = async (world: World): Promise<OccurrenceFields[]> =>
  (await world.twin('triggers').list(OCCURRENCE_TYPE))
    .map((r) => r.fields as unknown as OccurrenceFields)
    .sort((a, b) => a.number - b.number);

describe('configure and tick', () => {
  it('fires each due occurrence once, numbered, identified by trigger and nominal instant', async () => {
    const { world, clock, calendar, engine, runs } = await calendarHarness(
      '2026-03-01T12:00:00.000Z',
    );
    const configured = await calendar.configure({
      tenantId: 'acme',
      triggerId: 'hourly',
      cron: '0 * * * *',
      timezone: 'UTC',
    });
    expect(configured).toEqual({
      subscriptionId: subscriptionId('acme', 'hourly'),
      revision: 1,
      cursor: '2026-03-01T12:00:00.000Z',
      nextAt: '2026-03-01T13:00:00.000Z',
    });
    expect(await calendar.tick('acme')).toEqual({
      tenantId: 'acme',
      now: '2026-03-01T12:00:00.000Z',
      fired: [],
      missed: [],
    });

    await clock.set('2026-03-01T13:00:00.000Z');
    const first = await calendar.tick('acme');
    expect(first.fired).toEqual([
      {
        triggerId: 'hourly',
        number: 1,
        nominalAt: '2026-03-01T13:00:00.000Z',
        wallTime: '2026-03-01T13:00',
        utcOffsetMinutes: 0,
        dst: 'normal',
        dstRule: null,
        catchUp: false,
        latenessMs: 0,
        dedupeKey: 'calendar:hourly@2026-03-01T13:00:00.000Z',
        status: 'triggered',
        error: null,
        recordId: recordId('acme', 'calendar:hourly@2026-03-01T13:00:00.000Z'),
        routineResult: { ran: '2026-03-01T13:00:00.000Z' },
      },
    ]);
    // the same tick again, and a tick a little later, fire nothing
    expect((await calendar.tick('acme')).fired).toEqual([]);
    await clock.advance(30 * 60_000);
    expect((await calendar.tick('acme')).fired).toEqual([]);
    await clock.set('2026-03-01T14:00:00.250Z');
    const second = await calendar.tick('acme');
    expect(second.fired.map((f) => [f.number, f.nominalAt, f.latenessMs])).toEqual([
      [2, '2026-03-01T14:00:00.000Z', 250],
    ]);
    expect(runs).toHaveLength(2);

    const record = (await engine.record('acme', 'calendar:hourly@2026-03-01T13:00:00.000Z'))!;
    expect(record.envelope).toMatchObject({
      source: { kind: 'calendar', provider: 'cron' },
      scopeId: 'acme',
      scheduledAt: '2026-03-01T13:00:00.000Z',
      occurredAt: '2026-03-01T13:00:00.000Z',
      eventId: occurrenceId('acme', 'hourly', '2026-03-01T13:00:00.000Z'),
    });
    expect(record.envelope.payload).toEqual({
      occurrence: 1,
      nominalAt: '2026-03-01T13:00:00.000Z',
      wallTime: '2026-03-01T13:00',
      utcOffsetMinutes: 0,
      dst: 'normal',
      dstRule: null,
      timezone: 'UTC',
      cron: '0 * * * *',
      catchUp: false,
    });
    expect((await occurrences(world)).map((o) => [o.number, o.state, o.answer])).toEqual([
      [1, 'fired', 'triggered'],
      [2, 'fired', 'triggered'],
    ]);
    const sub = (await calendar.subscription('acme', 'hourly'))!;
    expect(sub).toMatchObject({
      cursor: '2026-03-01T14:00:00.250Z',
      occurrences: 2,
      revision: 1,
      dstRules: { gap: 'shift-forward', fold: 'first' },
    });
    expect(sub.tzdb).toBe(process.versions.tz ?? null);
    const ops = (await world.twin('triggers').entries()).map((e) => e.operation);
    // a tick with nothing due writes nothing
    expect(ops.filter((o) => o.startsWith('calendar.'))).toEqual([
      'calendar.configure',
      'calendar.due',
      'calendar.advance',
      'calendar.fire',
      'calendar.due',
      'calendar.advance',
      'calendar.fire',
    ]);
    await world.close();
  });

  it('answers only for the tenant it ticks, each subscription in trigger order', async () => {
    const { world, clock, calendar } = await calendarHarness('2026-03-01T00:00:00.000Z');
    await calendar.configure({
      tenantId: 'acme',
      triggerId: 'nightly',
      cron: '0 3 * * *',
      timezone: 'UTC',
    });
    await calendar.configure({
      tenantId: 'acme',
      triggerId: 'hourly',
      cron: '0 * * * *',
      timezone: 'UTC',
      catchUp: { kind: 'latest' },
    });
    await calendar.configure({
      tenantId: 'globex',
      triggerId: 'hourly',
      cron: '0 * * * *',
      timezone: 'UTC',
    });
    await clock.set('2026-03-01T03:00:00.000Z');
    const acme = await calendar.tick('acme');
    expect(acme.fired.map((f) => f.triggerId)).toEqual(['hourly', 'nightly']);
    expect(acme.missed.map((m) => [m.triggerId, m.nominalAt])).toEqual([
      ['hourly', '2026-03-01T01:00:00.000Z'],
      ['hourly', '2026-03-01T02:00:00.000Z'],
    ]);
    expect((await calendar.subscription('globex', 'hourly'))!.occurrences).toBe(0);
    expect((await calendar.tick('globex')).fired).toHaveLength(1);
    expect(await calendar.tick('initech')).toMatchObject({ fired: [], missed: [] });
    await world.close();
  });

  it('reconfiguring resets the cursor (no backfill) and keeps numbering; a disabled subscription fires nothing', async () => {
    const { world, clock, calendar } = await calendarHarness('2026-03-01T00:00:00.000Z');
    await calendar.configure({
      tenantId: 'acme',
      triggerId: 'hourly',
      cron: '0 * * * *',
      timezone: 'UTC',
    });
    await clock.set('2026-03-01T01:00:00.000Z');
    await calendar.tick('acme');
    await clock.set('2026-03-01T05:30:00.000Z');
    expect(
      await calendar.configure({
        tenantId: 'acme',
        triggerId: 'hourly',
        cron: '30 * * * *',
        timezone: 'UTC',
      }),
    ).toMatchObject({
      revision: 2,
      cursor: '2026-03-01T05:30:00.000Z',
      nextAt: '2026-03-01T06:30:00.000Z',
    });
    expect(await calendar.tick('acme')).toMatchObject({ fired: [], missed: [] });
    await clock.set('2026-03-01T06:30:00.000Z');
    expect((await calendar.tick('acme')).fired.map((f) => [f.number, f.nominalAt])).toEqual([
      [2, '2026-03-01T06:30:00.000Z'],
    ]);
    await calendar.configure({
      tenantId: 'acme',
      triggerId: 'hourly',
      cron: '30 * * * *',
      timezone: 'UTC',
      enabled: false,
    });
    await clock.set('2026-03-01T09:30:00.000Z');
    expect(await calendar.tick('acme')).toMatchObject({ fired: [], missed: [] });
    expect(await calendar.subscription('acme', 'hourly')).toMatchObject({
      revision: 3,
      enabled: false,
      occurrences: 2,
    });
    await world.close();
  });

  it('takes an explicit now (epoch ms) as well as the world clock', async () => {
    const { world, calendar } = await calendarHarness('2026-03-01T00:00:00.000Z');
    await calendar.configure(
      { tenantId: 'acme', triggerId: 'hourly', cron: '0 * * * *', timezone: 'UTC' },
      Date.parse('2026-03-01T00:00:00Z'),
    );
    const answer = await calendar.tick('acme', Date.parse('2026-03-01T01:00:00Z'));
    expect(answer.now).toBe('2026-03-01T01:00:00.000Z');
    expect(answer.fired.map((f) => f.nominalAt)).toEqual(['2026-03-01T01:00:00.000Z']);
    await world.close();
  });
});

describe('DST rules, recorded on each occurrence', () => {
  it('America/New_York gap: 02:30 on 2026-03-08 fires at 03:00 EDT, marked gap-shifted', async () => {
    const { world, clock, calendar, engine } = await calendarHarness('2026-03-07T12:00:00.000Z');
    await calendar.configure({
      tenantId: 'acme',
      triggerId: 'ny',
      cron: '30 2 * * *',
      timezone: 'America/New_York',
    });
    await clock.set('2026-03-08T07:00:00.000Z');
    const { fired } = await calendar.tick('acme');
    expect(fired).toHaveLength(1);
    expect(fired[0]).toMatchObject({
      nominalAt: '2026-03-08T07:00:00.000Z',
      wallTime: '2026-03-08T03:00',
      utcOffsetMinutes: -240,
      dst: 'gap-shifted',
      dstRule: 'gap:shift-forward',
      status: 'triggered',
    });
    expect((await engine.record('acme', fired[0]!.dedupeKey))!.envelope.payload).toMatchObject({
      dst: 'gap-shifted',
      dstRule: 'gap:shift-forward',
      wallTime: '2026-03-08T03:00',
    });
    // the next day is ordinary again
    await clock.set('2026-03-09T06:30:00.000Z');
    expect((await calendar.tick('acme')).fired).toMatchObject([
      {
        nominalAt: '2026-03-09T06:30:00.000Z',
        wallTime: '2026-03-09T02:30',
        dst: 'normal',
        dstRule: null,
      },
    ]);
    await world.close();
  });

  it('America/New_York fold: 01:30 on 2026-11-01 fires once, on the first pass (fold-first)', async () => {
    const { world, clock, calendar } = await calendarHarness('2026-10-31T12:00:00.000Z');
    await calendar.configure({
      tenantId: 'acme',
      triggerId: 'ny',
      cron: '30 1 * * *',
      timezone: 'America/New_York',
    });
    await clock.set('2026-11-01T05:30:00.000Z');
    expect((await calendar.tick('acme')).fired).toMatchObject([
      {
        nominalAt: '2026-11-01T05:30:00.000Z',
        wallTime: '2026-11-01T01:30',
        utcOffsetMinutes: -240,
        dst: 'fold-first',
        dstRule: 'fold:first',
      },
    ]);
    await clock.set('2026-11-01T06:30:00.000Z'); // 01:30 EST, the second pass
    expect(await calendar.tick('acme')).toMatchObject({ fired: [], missed: [] });
    await world.close();
  });

  it('Europe/London and Australia/Lord_Howe (a 30-minute shift), with UTC as the control', async () => {
    const { world, clock, calendar } = await calendarHarness('2026-03-28T12:00:00.000Z');
    await calendar.configure({
      tenantId: 'acme',
      triggerId: 'london',
      cron: '30 1 * * *',
      timezone: 'Europe/London',
    });
    await calendar.configure({
      tenantId: 'acme',
      triggerId: 'hourly',
      cron: '30 1 * * *',
      timezone: 'UTC',
    });
    await clock.set('2026-03-29T01:00:00.000Z');
    const london = await calendar.tick('acme');
    expect(london.fired).toMatchObject([
      {
        triggerId: 'london',
        nominalAt: '2026-03-29T01:00:00.000Z',
        wallTime: '2026-03-29T02:00',
        dst: 'gap-shifted',
      },
    ]);
    await clock.set('2026-03-29T01:30:00.000Z');
    expect((await calendar.tick('acme')).fired).toMatchObject([
      {
        triggerId: 'hourly',
        nominalAt: '2026-03-29T01:30:00.000Z',
        wallTime: '2026-03-29T01:30',
        dst: 'normal',
        dstRule: null,
      },
    ]);
    await world.close();

    const lhi = await calendarHarness('2026-10-03T00:00:00.000Z');
    await lhi.calendar.configure({
      tenantId: 'acme',
      triggerId: 'lhi',
      cron: '15 2 * * *',
      timezone: 'Australia/Lord_Howe',
    });
    await lhi.clock.set('2026-10-03T16:00:00.000Z'); // 2026-10-04 02:30 +11:00, the end of the gap
    expect((await lhi.calendar.tick('acme')).fired).toMatchObject([
      {
        nominalAt: '2026-10-03T15:30:00.000Z',
        wallTime: '2026-10-04T02:30',
        utcOffsetMinutes: 660,
        dst: 'gap-shifted',
        dstRule: 'gap:shift-forward',
      },
    ]);
    await lhi.world.close();
  });
});

describe('catch-up after downtime: every missed occurrence recorded', () => {
  async function downtime(policy: Parameters<CalendarSource['configure']>[0]['catchUp']) {
    const h = await calendarHarness('2026-03-01T00:00:00.000Z');
    await h.calendar.configure({
      tenantId: 'acme',
      triggerId: 'hourly',
      cron: '0 * * * *',
      timezone: 'UTC',
      ...(policy === undefined ? {} : { catchUp: policy }),
    });
    await h.clock.set('2026-03-01T05:10:00.000Z'); // 01:00 … 05:00 fell due while nothing ticked
    const answer = await h.calendar.tick('acme');
    return { ...h, answer };
  }

  it('latest (the default): the newest fires, late and marked catch-up; the four older are missed', async () => {
    const { world, answer, runs } = await downtime(undefined);
    expect(answer.fired.map((f) => [f.number, f.nominalAt, f.catchUp, f.latenessMs])).toEqual([
      [5, '2026-03-01T05:00:00.000Z', true, 600_000],
    ]);
    expect(answer.missed.map((m) => [m.number, m.nominalAt, m.reason])).toEqual(
      [1, 2, 3, 4].map((n) => [n, `2026-03-01T0${n}:00:00.000Z`, 'catch-up:latest']),
    );
    expect(runs).toHaveLength(1);
    expect((runs[0]!.payload as { catchUp: boolean }).catchUp).toBe(true);
    const occ = await occurrences(world);
    expect(occ.map((o) => [o.number, o.state])).toEqual([
      [1, 'missed'],
      [2, 'missed'],
      [3, 'missed'],
      [4, 'missed'],
      [5, 'fired'],
    ]);
    expect(
      (await world.twin('triggers').entries()).filter((e) => e.operation === 'calendar.miss'),
    ).toHaveLength(4);
    // missed occurrences never reach the engine
    expect(await world.twin('triggers').list(RECORD_TYPE)).toHaveLength(1);
    await world.close();
  });

  it('skip: more than one due means the scheduler was down — none fires, all are recorded missed', async () => {
    const { world, answer, clock, calendar } = await downtime({ kind: 'skip' });
    expect(answer.fired).toEqual([]);
    expect(answer.missed.map((m) => m.number)).toEqual([1, 2, 3, 4, 5]);
    expect(answer.missed.every((m) => m.reason === 'catch-up:skip')).toBe(true);
    // back to normal: the next single due occurrence fires
    await clock.set('2026-03-01T06:00:00.000Z');
    expect((await calendar.tick('acme')).fired.map((f) => [f.number, f.catchUp])).toEqual([
      [6, false],
    ]);
    await world.close();
  });

  it('all {max: 3}: the newest three fire oldest first; the older two are missed', async () => {
    const { world, answer } = await downtime({ kind: 'all', max: 3 });
    expect(answer.fired.map((f) => f.number)).toEqual([3, 4, 5]);
    expect(answer.missed.map((m) => [m.number, m.reason])).toEqual([
      [1, 'catch-up:all'],
      [2, 'catch-up:all'],
    ]);
    await world.close();
  });

  it('a long outage (2 days of a per-minute cron) is recorded page by page: 2880 numbered, 2 fired', async () => {
    const h = await calendarHarness('2026-03-01T00:00:00.000Z');
    await h.calendar.configure({
      tenantId: 'acme',
      triggerId: 'minutely',
      cron: '* * * * *',
      timezone: 'UTC',
      catchUp: { kind: 'all', max: 2 },
    });
    await h.clock.set('2026-03-03T00:00:00.000Z');
    const answer = await h.calendar.tick('acme');
    expect(answer.fired.map((f) => [f.number, f.nominalAt])).toEqual([
      [2879, '2026-03-02T23:59:00.000Z'],
      [2880, '2026-03-03T00:00:00.000Z'],
    ]);
    expect(answer.missed).toHaveLength(2878);
    expect(answer.missed.map((m) => m.number)).toEqual(
      Array.from({ length: 2878 }, (_, i) => i + 1),
    );
    expect((await occurrences(h.world)).map((o) => o.number)).toEqual(
      Array.from({ length: 2880 }, (_, i) => i + 1),
    );
    expect(await h.calendar.subscription('acme', 'minutely')).toMatchObject({
      occurrences: 2880,
      cursor: '2026-03-03T00:00:00.000Z',
    });
    await h.world.close();

    const skip = await calendarHarness('2026-03-01T00:00:00.000Z');
    await skip.calendar.configure({
      tenantId: 'acme',
      triggerId: 'minutely',
      cron: '* * * * *',
      timezone: 'UTC',
      catchUp: { kind: 'skip' },
    });
    await skip.clock.set('2026-03-02T00:00:00.000Z');
    const skipped = await skip.calendar.tick('acme');
    expect(skipped.fired).toEqual([]);
    expect(skipped.missed).toHaveLength(1440);
    await skip.world.close();
  });
});

describe('ticks that race or crash', () => {
  it('two schedulers on one root ticking at once fire each occurrence once', async () => {
    const root = tempDir('twinworld-cal-');
    roots.push(root);
    const clock = new VirtualClock('2026-03-01T00:00:00.000Z');
    const a = await calendarHarness('', { root, clock });
    const b = await calendarHarness('', { root, clock });
    await a.calendar.configure({
      tenantId: 'acme',
      triggerId: 'hourly',
      cron: '0 * * * *',
      timezone: 'UTC',
      catchUp: { kind: 'all', max: 10 },
    });
    await clock.set('2026-03-01T06:00:00.000Z');
    const [x, y] = await Promise.all([a.calendar.tick('acme'), b.calendar.tick('acme')]);
    expect([...x.fired, ...y.fired].map((f) => f.number).sort((p, q) => p - q)).toEqual([
      1, 2, 3, 4, 5, 6,
    ]);
    expect(a.runs.length + b.runs.length).toBe(6);
    await a.world.close();
    await b.world.close();
  });

  it('an occurrence decided but never ingested (crash) is fired by the next tick; a run in progress is not repeated', async () => {
    const root = tempDir('twinworld-cal-');
    roots.push(root);
    const clock = new VirtualClock('2026-03-01T00:00:00.000Z');
    const crashed = await calendarHarness('', { root, clock, hang: true });
    await crashed.calendar.configure({
      tenantId: 'acme',
      triggerId: 'hourly',
      cron: '0 * * * *',
      timezone: 'UTC',
    });
    await clock.set('2026-03-01T01:00:00.000Z');
    void crashed.calendar.tick('acme'); // hangs inside the routine, like a process killed mid-run
    const id = occurrenceId('acme', 'hourly', '2026-03-01T01:00:00.000Z');
    await expect
      .poll(
        async () => (await crashed.world.twin('triggers').get(OCCURRENCE_TYPE, id))?.fields.state,
      )
      .toBe('pending');
    // The process dies: its engine stops heartbeating, so its run's lease will lapse.
    await crashed.engine.stop({ graceMs: 0 });

    const next = await calendarHarness('', { root, clock });
    // while the deciding tick's lease runs, it owns the firing
    expect(await next.calendar.tick('acme')).toMatchObject({ fired: [], missed: [] });
    await clock.advance(60_000);
    const answer = await next.calendar.tick('acme');
    expect(answer.fired).toMatchObject([{ number: 1, status: 'in_progress' }]);
    expect(next.runs).toHaveLength(0);
    expect((await next.world.twin('triggers').get(OCCURRENCE_TYPE, id))!.fields).toMatchObject({
      state: 'fired',
      answer: 'in_progress',
      pending: null,
      leaseUntil: null,
    });
    expect(
      (await next.world.twin('triggers').entriesFor(OCCURRENCE_TYPE, id)).map((e) => e.operation),
    ).toEqual(['calendar.due', 'calendar.reclaim', 'calendar.fire']);
    const recovered = await next.engine.recoverIncomplete('acme');
    expect(recovered.recovered).toMatchObject([
      { dedupeKey: 'calendar:hourly@2026-03-01T01:00:00.000Z', status: 'triggered', attempt: 2 },
    ]);
    expect(next.runs).toHaveLength(1);
    expect(await next.calendar.tick('acme')).toMatchObject({ fired: [], missed: [] });
    await next.world.close();
    await crashed.world.close();
  });

  it('the same walk twice writes the same log', async () => {
    const walk = async (): Promise<string> => {
      const h = await calendarHarness('2026-03-07T00:00:00.000Z');
      await h.calendar.configure({
        tenantId: 'acme',
        triggerId: 'ny',
        cron: '30 2 * * *',
        timezone: 'America/New_York',
        catchUp: { kind: 'all', max: 5 },
      });
      for (let day = 0; day < 4; day++) {
        await h.clock.advance(86_400_000);
        await h.calendar.tick('acme');
      }
      const lines = (await collect(h.world.twin('triggers').exportLines())).join('\n');
      await h.world.close();
      return lines;
    };
    expect(await walk()).toBe(await walk());
  });
});

describe('calendar refusals', () => {
  it.each([
    [{ triggerId: 'nightly', cron: '0 3 * * *', timezone: 'UTC' }, 'tenantId'],
    [{ tenantId: 'acme', cron: '0 3 * * *', timezone: 'UTC' }, 'triggerId'],
    [{ tenantId: 'acme', triggerId: 'nightly', cron: '0 3 * *', timezone: 'UTC' }, 'cron'],
    [{ tenantId: 'acme', triggerId: 'nightly', cron: '@daily', timezone: 'UTC' }, 'cron'],
    [{ tenantId: 'acme', triggerId: 'nightly', cron: '0 0 30 2 *', timezone: 'UTC' }, 'cron'],
    [
      { tenantId: 'acme', triggerId: 'nightly', cron: '0 3 * * *', timezone: 'Mars/Olympus' },
      'timezone',
    ],
    [{ tenantId: 'acme', triggerId: 'nightly', cron: '0 3 * * *' }, 'timezone'],
    [
      {
        tenantId: 'acme',
        triggerId: 'nightly',
        cron: '0 3 * * *',
        timezone: 'UTC',
        catchUp: { kind: 'some' },
      },
      'catchUp.kind',
    ],
    [
      {
        tenantId: 'acme',
        triggerId: 'nightly',
        cron: '0 3 * * *',
        timezone: 'UTC',
        catchUp: { kind: 'all' },
      },
      'catchUp.max',
    ],
    [
      {
        tenantId: 'acme',
        triggerId: 'nightly',
        cron: '0 3 * * *',
        timezone: 'UTC',
        catchUp: { kind: 'all', max: 501 },
      },
      'catchUp.max',
    ],
    [
      {
        tenantId: 'acme',
        triggerId: 'nightly',
        cron: '0 3 * * *',
        timezone: 'UTC',
        enabled: 'yes',
      },
      'enabled',
    ],
    [
      { tenantId: 'acme', triggerId: 'nightly', cron: '0 3 * * *', timezone: 'UTC', every: '1h' },
      'every',
    ],
    [
      {
        tenantId: 'acme',
        scopeId: 'has space',
        triggerId: 'nightly',
        cron: '0 3 * * *',
        timezone: 'UTC',
      },
      'scopeId',
    ],
  ])('configure refuses %j with INVALID_CONFIG at %s, writing nothing', async (sub, path) => {
    const { world, calendar } = await calendarHarness('2026-03-01T00:00:00.000Z');
    await expectRefusal(async () => await calendar.configure(sub as never), 'INVALID_CONFIG', path);
    expect(await world.twin('triggers').list(SUBSCRIPTION_TYPE)).toEqual([]);
    await world.close();
  });

  it('refuses bad now and tenant arguments, and use before the engine starts or after it stops', async () => {
    const { world, calendar, engine } = await calendarHarness('2026-03-01T00:00:00.000Z');
    const sub = { tenantId: 'acme', triggerId: 'hourly', cron: '0 * * * *', timezone: 'UTC' };
    await expectRefusal(async () => await calendar.configure(sub, -1), 'INVALID_ARGUMENT', 'now');
    await expectRefusal(async () => await calendar.configure(sub, 1.5), 'INVALID_ARGUMENT', 'now');
    await expectRefusal(() => calendar.tick('acme', Number.NaN), 'INVALID_ARGUMENT', 'now');
    await expectRefusal(() => calendar.tick('not a tenant'), 'INVALID_ARGUMENT', 'tenantId');
    await engine.stop();
    await expectRefusal(() => calendar.tick('acme'), 'ENGINE_STOPPED');
    await expectRefusal(async () => await calendar.configure(sub), 'ENGINE_STOPPED');
    await expectRefusal(() => new CalendarSource().tick('acme'), 'ENGINE_STOPPED');
    await world.close();
  });

  it('an occurrence of a trigger without a route is fired as refused (UNKNOWN_TRIGGER, recorded by the engine)', async () => {
    const { world, clock, calendar } = await calendarHarness('2026-03-01T00:00:00.000Z');
    await calendar.configure({
      tenantId: 'acme',
      triggerId: 'unrouted',
      cron: '0 * * * *',
      timezone: 'UTC',
    });
    await clock.set('2026-03-01T01:00:00.000Z');
    expect((await calendar.tick('acme')).fired).toMatchObject([
      { number: 1, status: 'refused', error: 'UNKNOWN_TRIGGER', recordId: null },
    ]);
    expect((await world.twin('triggers').entries()).map((e) => e.operation)).toContain(
      'trigger.refuse',
    );
    await world.close();
  });
});
