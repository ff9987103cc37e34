// Calendars through the worker: occurrences fall due from the store's due-time index — after a
// restart, in another process's world — and two workers ticking at once fire each one once.
import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { CalendarSource } from '../../src/triggers/calendar/calendar-source.js';
import { calendarWork } from '../../src/triggers/calendar/calendar-work.js';
import { OCCURRENCE_TYPE } from '../../src/triggers/calendar/subscription.js';
import { TriggerEngine } from '../../src/triggers/engine/engine.js';
import { InProcessRunner } from '../../src/triggers/in-process-runner.js';
import { VirtualClock } from '../../src/world/clock.js';
import { openWorld } from '../../src/world/world.js';
import { Worker } from '../../src/work/worker.js';
import { tempDir } from '../support/backends.js';

const roots: string[] = [];
afterAll(() => roots.forEach((r) => rmSync(r, { recursive: true, force: true })));

async function host(root: string, clock: VirtualClock, seed: string) {
  const world = openWorld({ root, clock, seed });
  const runs: string[] = [];
  const runner = new InProcessRunner(world).register('job', async (_input, ctx) => {
    runs.push(ctx.envelope.scheduledAt);
    return null;
  });
  const engine = new TriggerEngine({ world, runner });
  engine.registerRoute({ triggerId: 'hourly', routineId: 'job', buildInput: () => null });
  const calendar = new CalendarSource();
  engine.registerSource(calendar);
  await engine.start();
  return { world, engine, calendar, runs };
}

describe('calendars through the worker', () => {
  it('a configured calendar falls due from the store, and two workers fire each occurrence once', async () => {
    const root = tempDir('twinworld-calwork-');
    roots.push(root);
    const clock = new VirtualClock('2026-03-01T00:00:00.000Z');
    const setup = await host(root, clock, 'setup');
    const configured = await setup.calendar.configure({
      tenantId: 'acme',
      triggerId: 'hourly',
      cron: '0 * * * *',
      timezone: 'UTC',
    });
    expect(configured.nextAt).toBe('2026-03-01T01:00:00.000Z');
    await setup.world.close();

    // Two hosts started later; nothing but the store tells them when the calendar is due.
    const a = await host(root, clock, 'a');
    const b = await host(root, clock, 'b');
    const kindA = calendarWork(a.calendar, a.engine.twin);
    expect(await kindA.nextDue()).toBe(Date.parse('2026-03-01T01:00:00.000Z'));
    const workers = [
      new Worker(a.world, [kindA], { pollMs: 5 }),
      new Worker(b.world, [calendarWork(b.calendar, b.engine.twin)], { pollMs: 5 }),
    ];
    for (const w of workers) w.start();
    // Each hour's occurrence is waited for as it is recorded fired, not hoped for within a guessed
    // 60 ms of wall time that a loaded machine may not give the workers.
    for (let hour = 1; hour <= 5; hour++) {
      await clock.advance(3_600_000);
      const due = `2026-03-01T0${hour}:00:00.000Z`;
      await vi.waitFor(
        async () => {
          const fired = (await a.engine.twin.list(OCCURRENCE_TYPE)).filter(
            (o) => o.fields.state === 'fired',
          );
          expect(fired).toHaveLength(hour);
          expect([...a.runs, ...b.runs]).toContain(due);
        },
        { timeout: 30_000, interval: 5 },
      );
    }
    await Promise.all(workers.map((w) => w.stop()));
    const fired = [...a.runs, ...b.runs].sort();
    expect(fired).toEqual([
      '2026-03-01T01:00:00.000Z',
      '2026-03-01T02:00:00.000Z',
      '2026-03-01T03:00:00.000Z',
      '2026-03-01T04:00:00.000Z',
      '2026-03-01T05:00:00.000Z',
    ]);
    const occurrences = await a.engine.twin.list(OCCURRENCE_TYPE);
    expect(occurrences.map((o) => o.fields.state)).toEqual(Array(5).fill('fired'));
    expect(occurrences.every((o) => o.fields.dueAt === null)).toBe(true);
    expect(await kindA.nextDue()).toBe(Date.parse('2026-03-01T06:00:00.000Z'));
    await a.world.close();
    await b.world.close();
  });
});
