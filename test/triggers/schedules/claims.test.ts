// Occurrence claims on every backend: each overlap policy decided inside the claim from the stored
// declaration, two schedulers claiming one occurrence (one claim, one "already claimed"), a paused
// schedule and a stale revision firing nothing.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { isoAt } from '../../../src/world/clock.js';
import {
  type Claim,
  type Reservation,
  type RunReport,
} from '../../../src/triggers/schedules/index.js';
import { scheduleKey } from '../../../src/triggers/schedules/declaration.js';
import { backends } from '../../support/backends.js';
import { expectRefusal } from '../support.js';
import { harness, ledger, nightly, T0, type Harness } from './support.js';

const MINUTE = 60_000;
const at = (minutes: number): string => isoAt(Date.parse(T0) + minutes * MINUTE);

function reservationOf(claim: Claim | undefined): Reservation {
  if (claim === undefined || !claim.claimed || !('reservation' in claim) || !claim.reservation)
    throw new Error(`expected a launching claim, got ${JSON.stringify(claim)}`);
  return claim.reservation;
}

for (const backendCase of backends) {
  describe(`schedule claims: ${backendCase.name}`, () => {
    let h: Harness;
    afterEach(async () => h?.close());

    /** Declares an every-minute schedule with `overlap`, moves to minute `m` and claims what is due. */
    async function setUp(overlap: string): Promise<void> {
      h = await harness(backendCase);
      await h.schedules.declare(nightly({ cron: '* * * * *', overlap }));
    }
    const key = scheduleKey('acme', 'nightly');
    async function claimAt(minute: number): Promise<Claim[]> {
      await h.clock.set(at(minute));
      return (await h.schedules.claimDue(key)).claims;
    }
    /** Starts the run of a reservation; resolves once its routine is waiting on the gate. */
    async function start(r: Reservation): Promise<{ done: Promise<RunReport> }> {
      const before = h.gates.length;
      const run = h.schedules.run(r);
      run.catch(() => {});
      await vi.waitFor(() => expect(h.gates.length).toBe(before + 1), { timeout: 10_000 });
      // Wrapped: an async function returning a promise would wait for it.
      return { done: run };
    }

    it('fire: an occurrence due while one runs launches beside it', async () => {
      await setUp('fire');
      const [c1] = await claimAt(1);
      expect(c1).toMatchObject({ claimed: true, action: 'fire', nominalAt: at(1) });
      const { done: run1 } = await start(reservationOf(c1));
      const [c2] = await claimAt(2);
      expect(c2).toMatchObject({ claimed: true, action: 'fire', superseded: [] });
      const { done: run2 } = await start(reservationOf(c2));
      expect((await h.schedules.inspect('acme', 'nightly')).active).toHaveLength(2);
      h.gates[1]!.finish({ n: 2 });
      h.gates[0]!.finish({ n: 1 });
      expect((await run1).outcome).toBe('completed');
      expect((await run2).result).toEqual({ n: 2 });
      const rows = await ledger(h.schedules);
      expect(rows.map((r) => [r.nominalAt, r.outcome])).toEqual([
        [at(2), 'completed'],
        [at(1), 'completed'],
      ]);
      expect(rows[1]!.runId).toBe(`${rows[1]!.occurrenceId}.1`);
      expect((await h.schedules.get('acme', 'nightly'))!.active).toEqual([]);
    });

    it('skip: an occurrence due while a run is active is recorded as skipped', async () => {
      await setUp('skip');
      const { done: run1 } = await start(reservationOf((await claimAt(1))[0]));
      const [c2] = await claimAt(2);
      expect(c2).toMatchObject({ claimed: true, action: 'skip', reason: 'overlap' });
      h.gates[0]!.finish(null);
      await run1;
      const [c3] = await claimAt(3);
      expect(c3).toMatchObject({ claimed: true, action: 'fire' });
      expect((await ledger(h.schedules)).map((r) => [r.nominalAt, r.outcome, r.reason])).toEqual([
        [at(3), null, null],
        [at(2), 'skipped', 'overlap'],
        [at(1), 'completed', null],
      ]);
    });

    it('buffer:1:oldest: one occurrence waits, a further one is skipped, the buffered one launches when the run ends', async () => {
      await setUp('buffer:1:oldest');
      const { done: run1 } = await start(reservationOf((await claimAt(1))[0]));
      expect((await claimAt(2))[0]).toMatchObject({ action: 'buffer', dropped: null });
      expect((await claimAt(3))[0]).toMatchObject({ action: 'skip', reason: 'buffer-full' });
      const mid = await h.schedules.inspect('acme', 'nightly');
      expect(mid.buffer.map((b) => b.nominalAt)).toEqual([at(2)]);
      h.gates[0]!.finish(null);
      expect((await run1).promoted).not.toBeNull();
      const after = await h.schedules.inspect('acme', 'nightly');
      expect(after.buffer).toEqual([]);
      expect(after.active).toMatchObject([{ nominalAt: at(2), state: 'ready', activeRunId: null }]);
      const held = await h.schedules.reserve(after.active[0]!.occurrenceId);
      expect(held).toMatchObject({ nominalAt: at(2), fence: 1 });
      const { done: run2 } = await start(held!);
      h.gates[1]!.finish(null);
      expect((await run2).outcome).toBe('completed');
      expect((await ledger(h.schedules)).map((r) => [r.nominalAt, r.outcome, r.reason])).toEqual([
        [at(3), 'skipped', 'buffer-full'],
        [at(2), 'completed', null],
        [at(1), 'completed', null],
      ]);
    });

    it('buffer:1:newest: a full buffer drops its oldest for the newcomer', async () => {
      await setUp('buffer:1:newest');
      await start(reservationOf((await claimAt(1))[0]));
      const [c2] = await claimAt(2);
      const [c3] = await claimAt(3);
      expect(c3).toMatchObject({ action: 'buffer', dropped: c2!.occurrenceId });
      const rows = await ledger(h.schedules);
      expect(rows.map((r) => [r.nominalAt, r.state, r.outcome, r.reason])).toEqual([
        [at(3), 'buffered', 'buffered', null],
        [at(2), 'settled', 'superseded', 'buffer-newest'],
        [at(1), 'running', 'launched', null],
      ]);
      expect(rows[1]!.supersededBy).toBe(c3!.occurrenceId);
    });

    it('supersede: the newcomer cancels the running occurrence; its late result is refused and kept', async () => {
      await setUp('supersede');
      const r1 = reservationOf((await claimAt(1))[0]);
      const { done: run1 } = await start(r1);
      const [c2] = await claimAt(2);
      expect(c2).toMatchObject({ action: 'supersede', superseded: [r1.occurrenceId] });
      await start(reservationOf(c2));
      h.gates[0]!.finish({ late: true });
      const refused = await expectRefusal(() => run1, 'STALE_OWNER', 'reservation');
      expect(refused.details).toMatchObject({ state: 'settled', outcome: 'superseded' });
      const rows = await ledger(h.schedules);
      expect(rows[1]).toMatchObject({
        nominalAt: at(1),
        outcome: 'superseded',
        reason: 'superseded',
        supersededBy: c2!.occurrenceId,
        lateObservation: {
          owner: 'host-a',
          fence: 1,
          outcome: 'completed',
          result: { late: true },
        },
      });
      expect(rows[0]).toMatchObject({ nominalAt: at(2), outcome: 'launched' });
      expect((await h.schedules.get('acme', 'nightly'))!.active).toEqual([c2!.occurrenceId]);
    });

    it('two schedulers claiming one occurrence: one claim, one "already claimed"', async () => {
      h = await harness(backendCase);
      const declared = await h.schedules.declare(nightly({ cron: '* * * * *', overlap: 'fire' }));
      const other = await h.second();
      await h.clock.set(at(1));
      const request = {
        tenantId: 'acme',
        scheduleId: 'nightly',
        nominalAt: at(1),
        expectedRevision: declared.revision,
      };
      const answers = await Promise.all([h.schedules.claim(request), other.claim(request)]);
      expect(answers.filter((a) => a.claimed)).toHaveLength(1);
      expect(answers.filter((a) => !a.claimed)).toMatchObject([
        { claimed: false, reason: 'already_claimed', outcome: null },
      ]);
      // The scheduler's own claim of that minute finds it claimed too: one row.
      const [a, b] = await Promise.all([h.schedules.claimDue(key), other.claimDue(key)]);
      expect([...a.claims, ...b.claims].filter((c) => c.claimed)).toEqual([]);
      expect(await ledger(h.schedules)).toHaveLength(1);
    });

    it('two schedulers polling together claim each occurrence once', async () => {
      h = await harness(backendCase);
      await h.schedules.declare(nightly({ cron: '* * * * *', overlap: 'fire' }));
      const other = await h.second();
      for (let m = 1; m <= 5; m++) {
        await h.clock.set(at(m));
        const [a, b] = await Promise.all([h.schedules.claimDue(key), other.claimDue(key)]);
        expect([...a.claims, ...b.claims].filter((c) => c.claimed)).toHaveLength(1);
      }
      expect((await ledger(h.schedules)).map((r) => r.nominalAt)).toEqual([5, 4, 3, 2, 1].map(at));
    });

    it('a paused schedule claims nothing; resumed, it counts from then', async () => {
      h = await harness(backendCase);
      const d = await h.schedules.declare(nightly({ cron: '* * * * *' }));
      const paused = await h.schedules.pause('acme', 'nightly');
      expect(paused).toMatchObject({ enabled: false, revision: d.revision + 1, dueAt: null });
      await h.clock.set(at(3));
      expect((await h.schedules.claimDue(key)).claims).toEqual([]);
      const claim = await h.schedules.claim({
        tenantId: 'acme',
        scheduleId: 'nightly',
        nominalAt: at(2),
        expectedRevision: paused.revision,
      });
      expect(claim).toMatchObject({ claimed: false, reason: 'disabled' });
      const resumed = await h.schedules.resume('acme', 'nightly');
      expect(resumed).toMatchObject({ enabled: true, cursor: at(3), nextAt: at(4) });
      await h.clock.set(at(4));
      expect((await h.schedules.claimDue(key)).claims.map((c) => c.nominalAt)).toEqual([at(4)]);
      expect(await ledger(h.schedules)).toHaveLength(1);
    });

    it('a claim against a stale revision is refused naming both revisions, and writes nothing', async () => {
      h = await harness(backendCase);
      const first = await h.schedules.declare(nightly({ cron: '* * * * *' }));
      await h.schedules.declare(nightly({ cron: '* * * * *', overlap: 'fire' }), {
        expectedRevision: first.revision,
      });
      await h.clock.set(at(1));
      const head = await h.schedules.twin.head();
      const e = await expectRefusal(
        () =>
          h.schedules.claim({
            tenantId: 'acme',
            scheduleId: 'nightly',
            nominalAt: at(1),
            expectedRevision: first.revision,
          }),
        'REVISION_MISMATCH',
        'expectedRevision',
      );
      expect(e.details).toMatchObject({ expectedRevision: 1, revision: 2 });
      expect(e.message).toContain('revision 2');
      expect(e.message).toContain('revision 1');
      expect(await h.schedules.twin.head()).toBe(head);
    });
  });
}
