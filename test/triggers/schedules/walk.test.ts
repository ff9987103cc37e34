// A week of a nightly schedule with a slow routine, on the walk's virtual clock: what the ledger
// says happened each night (a buffered night launched when the slow run ended, a night skipped
// behind a full buffer, the DST gap), that runs never overlapped under the buffer policy, and that
// the walk writes fixtures/walk-schedules.jsonl byte for byte.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Schedules } from '../../../src/triggers/schedules/index.js';
import { goldenWalks } from '../../support/golden-walks.js';

describe('the schedules walk', () => {
  it('runs a week of nightly reports as the ledger and the golden log say', async () => {
    const golden = goldenWalks.find((g) => g.name === 'walk-schedules')!;
    const walk = await golden.run();
    try {
      const schedules = new Schedules({ world: walk.world });
      const { items } = await schedules.history({ tenantId: 'acme', limit: 100 });
      const nights = [...items].reverse();
      expect(nights.map((r) => [r.wallTime, r.outcome, r.reason, r.dstRule, r.launchedAt])).toEqual(
        [
          ['2026-03-02T02:30', 'completed', null, null, '2026-03-02T07:30:00.000Z'],
          ['2026-03-03T02:30', 'completed', null, null, '2026-03-03T07:30:00.000Z'],
          // Buffered behind Tuesday's 30-hour run, launched when it ended.
          ['2026-03-04T02:30', 'completed', null, null, '2026-03-04T13:30:00.000Z'],
          ['2026-03-05T02:30', 'completed', null, null, '2026-03-05T07:30:00.000Z'],
          ['2026-03-06T02:30', 'completed', null, null, '2026-03-06T07:30:00.000Z'],
          ['2026-03-07T02:30', 'completed', null, null, '2026-03-08T09:30:00.000Z'],
          // 02:30 does not exist that night in New York: shifted to 03:00 EDT, and the buffer was full.
          ['2026-03-08T03:00', 'skipped', 'buffer-full', 'gap:shift-forward', null],
          ['2026-03-09T02:30', 'completed', null, null, '2026-03-09T06:30:00.000Z'],
        ],
      );
      const ran = nights.filter((r) => r.launchedAt !== null);
      for (let i = 1; i < ran.length; i++)
        expect(ran[i]!.launchedAt! >= ran[i - 1]!.finishedAt!).toBe(true);
      expect(ran.map((r) => (r.result as { hours: number }).hours)).toEqual([
        3, 30, 3, 3, 50, 3, 3,
      ]);
      const lines = await walk.exportLog();
      expect(`${lines.join('\n')}\n`).toBe(readFileSync('fixtures/walk-schedules.jsonl', 'utf8'));
    } finally {
      await walk.close();
    }
  });
});
