// A calendar occurrence already on record never fires, is never missed and is never renumbered
// again — even when `configure` moves the cursor back before it (issue 18).
import { describe, expect, it } from 'vitest';
import { CalendarSource } from '../../../src/triggers/calendar/calendar-source.js';
import { type OccurrenceFields } from '../../../src/triggers/calendar/occurrence-record.js';
import { OCCURRENCE_TYPE } from '../../../src/triggers/calendar/subscription.js';
import { TriggerEngine } from '../../../src/triggers/engine/engine.js';
import { InProcessRunner } from '../../../src/triggers/in-process-runner.js';
import { VirtualClock } from '../../../src/world/clock.js';
import { openWorld, type World } from '../../../src/world/world.js';

async function calendar(start: string) {
  const clock = new VirtualClock(start);
  const world = openWorld({ root: ':memory:', clock, seed: 'reconfigure' });
  const runs: string[] = [];
  const runner = new InProcessRunner(world).register('job', async (_input, ctx) => {
    runs.push(ctx.envelope.scheduledAt);
    return { ran: ctx.envelope.scheduledAt };
  });
  const engine = new TriggerEngine({ world, runner });
  engine.registerRoute({ triggerId: 'hourly', routineId: 'job', buildInput: (e) => e.payload });
  const source = new CalendarSource();
  engine.registerSource(source);
  await engine.start();
  return { clock, world, engine, source, runs };
}

const occurrences = async (world: World): Promise<OccurrenceFields[]> =>
  (await world.twin('triggers').list(OCCURRENCE_TYPE))
    .map((r) => r.fields as unknown as OccurrenceFields)
    .sort((a, b) => a.number - b.number);

const hourly = { tenantId: 'acme', triggerId: 'hourly', cron: '0 * * * *', timezone: 'UTC' };

describe('an occurrence on record is final', () => {
  it('tick, configure with an earlier now, tick again: nothing fires, nothing is missed twice, nothing is refused', async () => {
    const c = await calendar('2026-03-01T12:00:00.000Z');
    await c.source.configure(hourly);
    await c.clock.set('2026-03-01T13:00:00.000Z');
    const first = await c.source.tick('acme');
    expect(first.fired.map((f) => [f.number, f.nominalAt, f.status])).toEqual([
      [1, '2026-03-01T13:00:00.000Z', 'triggered'],
    ]);
    const before = await occurrences(c.world);

    // the operator reconfigures with a cursor before the occurrence that already fired
    await c.source.configure(hourly, Date.parse('2026-03-01T12:30:00.000Z'));
    const again = await c.source.tick('acme');
    expect(again).toEqual({
      tenantId: 'acme',
      now: '2026-03-01T13:00:00.000Z',
      fired: [],
      missed: [],
    });
    expect(await occurrences(c.world)).toEqual(before);
    expect(await c.source.subscription('acme', 'hourly')).toMatchObject({
      occurrences: 1,
      cursor: '2026-03-01T13:00:00.000Z',
    });
    expect(c.runs).toEqual(['2026-03-01T13:00:00.000Z']);
    expect(
      (await c.world.twin('triggers').entries()).filter((e) => e.operation === 'trigger.conflict'),
    ).toEqual([]);

    // the schedule carries on, numbered after what is on record
    await c.clock.set('2026-03-01T14:00:00.000Z');
    const next = await c.source.tick('acme');
    expect(next.fired.map((f) => [f.number, f.nominalAt, f.status])).toEqual([
      [2, '2026-03-01T14:00:00.000Z', 'triggered'],
    ]);
    expect(next.missed).toEqual([]);
  });

  it('after a catch-up, moving the cursor back neither re-fires the one that fired nor re-misses those missed', async () => {
    const c = await calendar('2026-03-01T12:00:00.000Z');
    await c.source.configure({ ...hourly, catchUp: { kind: 'latest' } });
    await c.clock.set('2026-03-01T15:00:00.000Z');
    const caughtUp = await c.source.tick('acme');
    expect(caughtUp.missed.map((m) => [m.number, m.nominalAt])).toEqual([
      [1, '2026-03-01T13:00:00.000Z'],
      [2, '2026-03-01T14:00:00.000Z'],
    ]);
    expect(caughtUp.fired.map((f) => [f.number, f.nominalAt])).toEqual([
      [3, '2026-03-01T15:00:00.000Z'],
    ]);
    const before = await occurrences(c.world);

    await c.source.configure(
      { ...hourly, catchUp: { kind: 'all', max: 5 } },
      Date.parse('2026-03-01T12:00:00.000Z'),
    );
    expect(await c.source.tick('acme')).toEqual({
      tenantId: 'acme',
      now: '2026-03-01T15:00:00.000Z',
      fired: [],
      missed: [],
    });
    expect(await occurrences(c.world)).toEqual(before);
    expect(c.runs).toEqual(['2026-03-01T15:00:00.000Z']);

    // one new occurrence past the old ones is new, and fires under the new policy as number 4
    await c.clock.set('2026-03-01T16:00:00.000Z');
    const next = await c.source.tick('acme');
    expect(next.fired.map((f) => [f.number, f.nominalAt, f.status])).toEqual([
      [4, '2026-03-01T16:00:00.000Z', 'triggered'],
    ]);
    expect(next.missed).toEqual([]);
  });
});
