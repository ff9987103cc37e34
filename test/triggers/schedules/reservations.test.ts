// Launch reservations on every backend: a reservation whose owner stops (before or after its
// launch) is reclaimed by another scheduler only once its lease lapsed, the dead owner's late
// result is refused STALE_OWNER and kept as a late observation, and a live owner's heartbeats keep
// its reservation. Also the work kind: what falls due, through the due-time index.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { isoAt } from '../../../src/world/clock.js';
import {
  scheduleWork,
  type Claim,
  type Reservation,
} from '../../../src/triggers/schedules/index.js';
import { scheduleKey } from '../../../src/triggers/schedules/declaration.js';
import { backends } from '../../support/backends.js';
import { expectRefusal } from '../support.js';
import { harness, ledger, nightly, T0, type Harness } from './support.js';

const SECOND = 1000;
const LEASE = 2000;
const at = (ms: number): string => isoAt(Date.parse(T0) + ms);
const key = scheduleKey('acme', 'nightly');

function reservationOf(claim: Claim | undefined): Reservation {
  if (claim === undefined || !claim.claimed || !('reservation' in claim) || !claim.reservation)
    throw new Error(`expected a launching claim, got ${JSON.stringify(claim)}`);
  return claim.reservation;
}

for (const backendCase of backends) {
  describe(`schedule reservations: ${backendCase.name}`, () => {
    let h: Harness;
    afterEach(async () => h?.close());

    async function setUp(): Promise<void> {
      h = await harness(backendCase, { leaseMs: LEASE });
      await h.schedules.declare(
        nightly({ cron: '* * * * * *', routine: 'record', overlap: 'skip' }),
      );
    }

    it('a reservation whose owner died before launching is reclaimed after its lease; the late result is refused and kept', async () => {
      await setUp();
      await h.clock.set(at(SECOND));
      const dead = reservationOf((await h.schedules.claimDue(key)).claims[0]);
      const other = await h.second();
      expect(await other.reserve(dead.occurrenceId)).toBeUndefined();
      await h.clock.set(at(SECOND + LEASE - 1));
      expect(await other.reserve(dead.occurrenceId)).toBeUndefined();
      await h.clock.set(at(SECOND + LEASE));
      const taken = await other.reserve(dead.occurrenceId);
      expect(taken).toMatchObject({ owner: 'host-b', fence: 2 });
      // Meanwhile the schedule stays busy: the next second is skipped, not launched beside it.
      expect((await other.claimDue(key)).claims[0]).toMatchObject({ action: 'skip' });
      const report = await other.run(taken!);
      expect(report).toMatchObject({ outcome: 'completed', runId: `${dead.occurrenceId}.2` });
      const head = await h.schedules.twin.head();
      const refused = await expectRefusal(
        () => h.schedules.recordResult(dead, { outcome: 'completed', result: { mine: true } }),
        'STALE_OWNER',
      );
      expect(refused.details).toMatchObject({ owner: 'host-a', fence: 1, state: 'settled' });
      expect(await h.schedules.twin.head()).toBe(head + 1);
      const row = (await ledger(h.schedules)).find((r) => r.occurrenceId === dead.occurrenceId)!;
      expect(row).toMatchObject({
        outcome: 'completed',
        owner: 'host-b',
        fence: 2,
        runId: `${dead.occurrenceId}.2`,
        lateObservation: {
          owner: 'host-a',
          fence: 1,
          outcome: 'completed',
          result: { mine: true },
        },
      });
    });

    it('a run whose owner died after launching is reclaimed and run again under a new fence', async () => {
      await setUp();
      await h.clock.set(at(SECOND));
      const dead = reservationOf((await h.schedules.claimDue(key)).claims[0]);
      await h.schedules.recordResult(dead, { outcome: 'launched', runId: 'run-a' });
      const other = await h.second();
      await h.clock.set(at(SECOND + LEASE));
      const taken = await other.reserve(dead.occurrenceId);
      expect(taken).toMatchObject({ fence: 2 });
      await other.run(taken!);
      const [row] = (await other.history({ tenantId: 'acme', runId: 'run-a' })).items;
      expect(row).toMatchObject({ outcome: 'completed', reclaimedRunId: 'run-a', fence: 2 });
      await expectRefusal(
        () =>
          h.schedules.recordResult(dead, { outcome: 'failed', error: 'TIMEOUT', runId: 'run-a' }),
        'STALE_OWNER',
      );
      const after = (await ledger(h.schedules)).find((r) => r.occurrenceId === dead.occurrenceId)!;
      expect(after.outcome).toBe('completed');
      expect(after.lateObservation).toMatchObject({
        outcome: 'failed',
        error: 'TIMEOUT',
        runId: 'run-a',
      });
    });

    it('a reservation given back before its launch is ready at once for another worker', async () => {
      await setUp();
      await h.clock.set(at(SECOND));
      const held = reservationOf((await h.schedules.claimDue(key)).claims[0]);
      const other = await h.second();
      expect(await other.release({ ...held, owner: 'host-b' })).toBe(false);
      expect(await h.schedules.release(held)).toBe(true);
      expect(await h.schedules.release(held)).toBe(false);
      const taken = await other.reserve(held.occurrenceId);
      expect(taken).toMatchObject({ owner: 'host-b', fence: 2 });
      await expectRefusal(
        () => h.schedules.recordResult(held, { outcome: 'launched', runId: 'late' }),
        'STALE_OWNER',
      );
      expect((await other.run(taken!)).outcome).toBe('completed');
    });

    it("a live owner's heartbeats keep its reservation however long its routine runs", async () => {
      h = await harness(backendCase, { leaseMs: LEASE });
      await h.schedules.declare(nightly({ cron: '0 * * * * *', routine: 'gate' }));
      await h.clock.set(at(60 * SECOND));
      const held = reservationOf((await h.schedules.claimDue(key)).claims[0]);
      const run = h.schedules.run(held);
      await vi.waitFor(() => expect(h.gates).toHaveLength(1), { timeout: 10_000 });
      const other = await h.second();
      for (let t = 61; t <= 70; t++) {
        await h.clock.set(at(t * SECOND));
        expect(await other.reserve(held.occurrenceId)).toBeUndefined();
      }
      h.gates[0]!.finish({ ok: 1 });
      expect((await run).outcome).toBe('completed');
    });

    it('refuses results that are not results: a launch without a run id, an error that is not a code', async () => {
      await setUp();
      await h.clock.set(at(SECOND));
      const held = reservationOf((await h.schedules.claimDue(key)).claims[0]);
      await expectRefusal(
        () => h.schedules.recordResult(held, { outcome: 'launched' } as never),
        'INVALID_OPTIONS',
        'runId',
      );
      await expectRefusal(
        () => h.schedules.recordResult(held, { outcome: 'launched', runId: ' ' }),
        'INVALID_OPTIONS',
        'runId',
      );
      await expectRefusal(
        () => h.schedules.recordResult(held, { outcome: 'failed', error: 'Error: boom at line 3' }),
        'INVALID_OPTIONS',
        'error',
      );
      await expectRefusal(
        () => h.schedules.recordResult(held, { outcome: 'done' } as never),
        'INVALID_OPTIONS',
        'outcome',
      );
      // A repeated launch report is harmless.
      await h.schedules.recordResult(held, { outcome: 'launched', runId: 'r1' });
      expect(
        (await h.schedules.recordResult(held, { outcome: 'launched', runId: 'r1' })).repeated,
      ).toBe(true);
    });

    it('the work kind finds due declarations and lapsed reservations through the due-time index', async () => {
      await setUp();
      const kind = scheduleWork(h.schedules);
      expect(await kind.nextDue()).toBe(Date.parse(at(SECOND)));
      expect(await kind.due(Date.parse(T0), 10)).toEqual([]);
      await h.clock.set(at(SECOND));
      const [item] = await kind.due(h.clock.now(), 10);
      expect(item).toEqual({ id: `schedule:${key}@${at(SECOND)}`, dueAt: at(SECOND) });
      const report = await kind.run(item!, { owner: 'wrk-1', leaseMs: LEASE });
      expect(report).toMatchObject({ kind: 'schedule', outcome: 'completed' });
      // Claimed already: running the same item again claims nothing.
      expect(await kind.run(item!, { owner: 'wrk-2', leaseMs: LEASE })).toBeUndefined();
      // A reservation left by a dead owner falls due when its lease lapses.
      await h.clock.set(at(2 * SECOND));
      const dead = reservationOf((await h.schedules.claimDue(key, { owner: 'dead' })).claims[0]);
      await h.clock.set(at(2 * SECOND + LEASE));
      const due = await kind.due(h.clock.now(), 10);
      expect(due.map((d) => d.id)).toContain(`fire:${dead.occurrenceId}`);
      const reclaimed = await kind.run(
        due.find((d) => d.id === `fire:${dead.occurrenceId}`)!,
        { owner: 'wrk-2', leaseMs: LEASE },
      );
      expect(reclaimed).toMatchObject({
        outcome: 'completed',
        detail: expect.stringContaining('fence 2'),
      });
      expect((await h.schedules.hosts()).map((x) => x.owner)).toEqual(['host-a']);
    });
  });
}
