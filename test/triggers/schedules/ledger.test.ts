// The fire ledger on every backend: history newest first with an opaque cursor and filters, its
// refusals (limit, cursor, outcome), an undecodable row reported instead of failing the page,
// pruning that removes settled rows only (and never what the scheduler still reads), inspect, and
// backfill through the same claim, idempotent by occurrence id.
import { afterEach, describe, expect, it } from 'vitest';
import { isoAt } from '../../../src/world/clock.js';
import { type Claim, type Reservation } from '../../../src/triggers/schedules/index.js';
import { scheduleKey } from '../../../src/triggers/schedules/declaration.js';
import { FIRE_TYPE } from '../../../src/triggers/schedules/fire-record.js';
import { backends } from '../../support/backends.js';
import { expectRefusal } from '../support.js';
import { harness, ledger, nightly, T0, type Harness } from './support.js';

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
const at = (ms: number): string => isoAt(Date.parse(T0) + ms);
const key = scheduleKey('acme', 'nightly');

function reservationOf(claim: Claim | undefined): Reservation {
  if (claim === undefined || !claim.claimed || !('reservation' in claim) || !claim.reservation)
    throw new Error(`expected a launching claim, got ${JSON.stringify(claim)}`);
  return claim.reservation;
}

for (const backendCase of backends) {
  describe(`the fire ledger: ${backendCase.name}`, () => {
    let h: Harness;
    afterEach(async () => h?.close());

    /** Minute 1 launches and stays launched (skip policy); minutes 2–6 are skipped. */
    async function sixMinutes(): Promise<Reservation> {
      h = await harness(backendCase);
      await h.schedules.declare(nightly({ cron: '* * * * *', overlap: 'skip' }));
      await h.clock.set(at(MINUTE));
      const held = reservationOf((await h.schedules.claimDue(key)).claims[0]);
      await h.schedules.recordResult(held, { outcome: 'launched', runId: 'run-1' });
      for (let m = 2; m <= 6; m++) {
        await h.clock.set(at(m * MINUTE));
        await h.schedules.claimDue(key);
      }
      return held;
    }

    it('answers newest first, page by page with an opaque cursor, filtered by outcome and run', async () => {
      await sixMinutes();
      const all = await ledger(h.schedules);
      expect(all.map((r) => r.nominalAt)).toEqual([6, 5, 4, 3, 2, 1].map((m) => at(m * MINUTE)));
      const pages: string[][] = [];
      let cursor: string | undefined;
      do {
        const page = await h.schedules.history({
          tenantId: 'acme',
          scheduleId: 'nightly',
          limit: 4,
          ...(cursor === undefined ? {} : { cursor }),
        });
        pages.push(page.items.map((r) => r.nominalAt));
        cursor = page.nextCursor ?? undefined;
      } while (cursor !== undefined);
      expect(pages.map((p) => p.length)).toEqual([4, 2]);
      expect(pages.flat()).toEqual(all.map((r) => r.nominalAt));
      const skipped = await h.schedules.history({ tenantId: 'acme', outcome: 'skipped' });
      expect(skipped.items).toHaveLength(5);
      expect(skipped.items.every((r) => r.reason === 'overlap')).toBe(true);
      const byRun = await h.schedules.history({ tenantId: 'acme', runId: 'run-1' });
      expect(byRun.items.map((r) => [r.nominalAt, r.outcome])).toEqual([[at(MINUTE), 'launched']]);
      expect((await h.schedules.history({ tenantId: 'acme', outcome: 'pending' })).items).toEqual(
        [],
      );
      expect((await h.schedules.history({ tenantId: 'globex' })).items).toEqual([]);
    });

    it('refuses a bad limit, cursor or outcome with INVALID_OPTIONS', async () => {
      await sixMinutes();
      for (const limit of [0, -1, 1.5, 1001, '3'])
        await expectRefusal(
          () => h.schedules.history({ tenantId: 'acme', limit: limit as number }),
          'INVALID_OPTIONS',
          'limit',
        );
      const { nextCursor } = await h.schedules.history({ tenantId: 'acme', limit: 1 });
      const tampered = Buffer.from('[2,"x","y","z"]').toString('base64url');
      for (const cursor of [
        'garbage!',
        '',
        Buffer.from('not json').toString('base64url'),
        tampered,
      ])
        await expectRefusal(
          () => h.schedules.history({ tenantId: 'acme', cursor }),
          'INVALID_OPTIONS',
          'cursor',
        );
      expect(nextCursor).toMatch(/^[A-Za-z0-9_-]+$/);
      await expectRefusal(
        () => h.schedules.history({ tenantId: 'acme', outcome: 'missed' as never }),
        'INVALID_OPTIONS',
        'outcome',
      );
    });

    it('reports an undecodable row beside the page instead of failing it', async () => {
      await sixMinutes();
      await h.schedules.twin.applyWrite({
        operation: 'schedule.claim',
        subjectType: FIRE_TYPE,
        subjectId: 'occ_broken',
        fields: { tenantId: 'acme', schedule: key, state: 'exploded' },
      });
      const page = await h.schedules.history({ tenantId: 'acme', scheduleId: 'nightly' });
      expect(page.items).toHaveLength(6);
      expect(page.undecodable).toEqual([
        expect.objectContaining({ id: 'occ_broken', code: 'UNDECODABLE_RECORD' }),
      ]);
      // another tenant's broken row, named through a run id, is not reported to acme
      await h.schedules.twin.applyWrite({
        operation: 'schedule.claim',
        subjectType: FIRE_TYPE,
        subjectId: 'occ_globex',
        fields: { tenantId: 'globex', schedule: key, state: 'exploded' },
      });
      const named = await h.schedules.history({ tenantId: 'acme', runId: 'occ_globex.1' });
      expect(named).toMatchObject({ items: [], undecodable: [] });
    });

    it('prunes settled rows older than a date as a write that deletes resources, never the active run', async () => {
      const held = await sixMinutes();
      const entries = await h.schedules.twin.head();
      await h.clock.set(at(DAY));
      await expectRefusal(
        () => h.schedules.prune({ tenantId: 'acme', before: 'yesterday' }),
        'INVALID_OPTIONS',
        'before',
      );
      const report = await h.schedules.prune({ tenantId: 'acme', before: at(4 * MINUTE + 1) });
      expect(report).toEqual({ removed: 3, kept: 0 });
      expect(await h.schedules.twin.head()).toBe(entries + 1);
      const left = await ledger(h.schedules);
      expect(left.map((r) => [r.nominalAt, r.outcome])).toEqual([
        [at(6 * MINUTE), 'skipped'],
        [at(5 * MINUTE), 'skipped'],
        [at(MINUTE), 'launched'],
      ]);
      // Pruning everything settled still keeps the active run.
      expect(await h.schedules.prune({ tenantId: 'acme', before: at(DAY) })).toEqual({
        removed: 2,
        kept: 0,
      });
      expect((await ledger(h.schedules)).map((r) => r.occurrenceId)).toEqual([held.occurrenceId]);
      // The log keeps every entry: entries are never removed.
      expect((await h.schedules.twin.entries()).length).toBe(entries + 2);
      // A pruned occurrence stays claimed: backfilling it claims nothing.
      const again = await h.schedules.backfill({
        tenantId: 'acme',
        scheduleId: 'nightly',
        from: at(2 * MINUTE),
        to: at(3 * MINUTE),
      });
      expect(again).toMatchObject({ claimed: 0, alreadyClaimed: 2 });
    });

    it('never prunes a buffered occurrence', async () => {
      h = await harness(backendCase);
      await h.schedules.declare(nightly({ cron: '* * * * *', overlap: 'buffer:1:oldest' }));
      await h.clock.set(at(MINUTE));
      const held = reservationOf((await h.schedules.claimDue(key)).claims[0]);
      await h.clock.set(at(2 * MINUTE));
      await h.schedules.claimDue(key);
      await h.clock.set(at(DAY));
      expect(await h.schedules.prune({ tenantId: 'acme', before: at(DAY) })).toEqual({
        removed: 0,
        kept: 0,
      });
      expect((await ledger(h.schedules)).map((r) => r.outcome)).toEqual(['buffered', null]);
      await h.schedules.recordResult(held, { outcome: 'failed', error: 'BOOM' });
      expect((await ledger(h.schedules)).map((r) => [r.state, r.outcome])).toEqual([
        ['ready', null],
        ['settled', 'failed'],
      ]);
    });

    it("a result names only an occurrence of the caller's own schedule: another tenant's row is no row", async () => {
      h = await harness(backendCase);
      await h.schedules.declare(nightly({ cron: '* * * * *' }));
      await h.schedules.declare(nightly({ tenantId: 'globex', cron: '* * * * *' }));
      await h.clock.set(at(MINUTE));
      const acme = reservationOf((await h.schedules.claimDue(key)).claims[0]);
      const before = await ledger(h.schedules);
      // globex knows acme's occurrence id, the host's owner and the fence, and names them as its own
      for (const forged of [
        { ...acme, tenantId: 'globex' },
        { ...acme, scheduleId: 'weekly' },
      ])
        await expectRefusal(
          () => h.schedules.recordResult(forged, { outcome: 'completed' }),
          'UNKNOWN_TRIGGER',
          'occurrenceId',
        );
      expect(await ledger(h.schedules)).toEqual(before);
      await h.schedules.recordResult(acme, { outcome: 'completed' });
      expect((await ledger(h.schedules))[0]).toMatchObject({
        state: 'settled',
        outcome: 'completed',
      });
    });

    it('inspect shows the declaration, the active run, the buffer, the next occurrences and the live hosts', async () => {
      h = await harness(backendCase, { hostBeatMs: 10_000 });
      await h.schedules.declare(nightly({ cron: '* * * * *', overlap: 'buffer:2:oldest' }));
      expect(await h.schedules.beat()).toBe(true);
      expect(await h.schedules.beat()).toBe(false);
      await h.clock.set(at(MINUTE));
      const held = reservationOf((await h.schedules.claimDue(key)).claims[0]);
      await h.schedules.recordResult(held, { outcome: 'launched', runId: 'run-1' });
      await h.clock.set(at(2 * MINUTE));
      await h.schedules.claimDue(key);
      const seen = await h.schedules.inspect('acme', 'nightly', { next: 3 });
      expect(seen.schedule).toMatchObject({ scheduleId: 'nightly', revision: 1 });
      expect(seen.active).toEqual([
        {
          occurrenceId: held.occurrenceId,
          nominalAt: at(MINUTE),
          state: 'running',
          activeRunId: 'run-1',
          owner: 'host-a',
          leaseUntil: expect.any(String),
          fence: 1,
        },
      ]);
      expect(seen.buffer.map((b) => b.nominalAt)).toEqual([at(2 * MINUTE)]);
      expect(seen.next.map((n) => n.nominalAt)).toEqual([3, 4, 5].map((m) => at(m * MINUTE)));
      // The host beat at T0 and nothing since: two minutes is past three beat intervals.
      expect(seen.hosts).toEqual([]);
      expect(seen.lastHeartbeat).toMatchObject({ owner: 'host-a', beatAt: T0, alive: false });
      await h.schedules.beat();
      expect((await h.schedules.inspect('acme', 'nightly')).hosts).toMatchObject([
        { owner: 'host-a', alive: true, beats: 2 },
      ]);
    });

    it('backfill claims each past occurrence through the same claim, once', async () => {
      h = await harness(backendCase);
      await h.schedules.declare(nightly({ cron: '0 3 * * *', overlap: 'skip' }));
      await h.clock.set(at(5 * DAY));
      const range = { tenantId: 'acme', scheduleId: 'nightly', from: T0, to: at(4 * DAY) };
      const first = await h.schedules.backfill({ ...range, overlap: 'buffer:10' });
      expect(first).toMatchObject({ occurrences: 4, claimed: 4, launched: 1, buffered: 3 });
      const head = await h.schedules.twin.head();
      const second = await h.schedules.backfill({ ...range, overlap: 'fire' });
      expect(second).toMatchObject({ occurrences: 4, claimed: 0, alreadyClaimed: 4 });
      expect(await h.schedules.twin.head()).toBe(head);
      const rows = await ledger(h.schedules);
      expect(rows.map((r) => [r.origin, r.state, r.overlap, r.overridden])).toEqual([
        ['backfill', 'buffered', 'buffer:10:oldest', true],
        ['backfill', 'buffered', 'buffer:10:oldest', true],
        ['backfill', 'buffered', 'buffer:10:oldest', true],
        ['backfill', 'ready', 'buffer:10:oldest', true],
      ]);
      // Ready for any worker: reserving it launches it.
      const held = await h.schedules.reserve(rows[3]!.occurrenceId);
      expect(held).toMatchObject({ nominalAt: '2026-03-02T03:00:00.000Z', fence: 1 });
      await expectRefusal(
        () => h.schedules.backfill({ ...range, to: at(6 * DAY) }),
        'INVALID_OPTIONS',
        'to',
      );
      await expectRefusal(
        () => h.schedules.backfill({ ...range, from: at(4 * DAY), to: T0 }),
        'INVALID_OPTIONS',
        'to',
      );
      await expectRefusal(
        () => h.schedules.backfill({ ...range, from: 'last week' }),
        'INVALID_OPTIONS',
        'from',
      );
      // Date.parse would roll the 30th of February into March, read a time without a zone in the
      // host's zone, and take a year the calendar cannot count in: each is refused, saying which.
      for (const [from, says] of [
        ['2026-02-30T00:00:00Z', 'is not a time on the calendar'],
        ['2026-03-01T00:00:00', 'must be an ISO 8601 time with its zone'],
        ['0001-01-01T00:00:00Z', 'is outside the times schedules count occurrences in'],
      ] as const) {
        const refused = await expectRefusal(
          () => h.schedules.backfill({ ...range, from }),
          'INVALID_OPTIONS',
          'from',
        );
        expect(refused.message).toContain(says);
      }
      await expectRefusal(
        () => h.schedules.prune({ tenantId: 'acme', before: '2026-02-30T00:00:00Z' }),
        'INVALID_OPTIONS',
        'before',
      );
    });

    it('refuses a backfill of more than 1000 occurrences', async () => {
      h = await harness(backendCase);
      await h.schedules.declare(nightly({ cron: '* * * * * *' }));
      await h.clock.set(at(DAY));
      await expectRefusal(
        () =>
          h.schedules.backfill({ tenantId: 'acme', scheduleId: 'nightly', from: T0, to: at(DAY) }),
        'INVALID_OPTIONS',
        'to',
      );
    });
  });
}
