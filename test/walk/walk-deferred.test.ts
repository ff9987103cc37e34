// The deferred-dispatch golden walk, read back: what each option did on the virtual clock — and the
// same walk on SQLite and PostgreSQL writes the same bytes as the committed fixture.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Entry } from '../../src/log/write.js';
import { backends } from '../support/backends.js';
import { deferredWalk } from '../support/golden-walk-deferred.js';

interface Line extends Entry {
  readonly twin: string;
}

describe('the deferred-dispatch walk', () => {
  it('debounces, delays, cancels, queues two at a time and expires, at the right instants', async () => {
    const walk = await deferredWalk();
    try {
      const lines = (await walk.exportLog()).map((l) => JSON.parse(l) as Line);
      const triggers = lines.filter((l) => l.twin === 'triggers');
      const at = (l: Line) => l.occurredAt.slice(11, 19);
      const runs = triggers
        .filter((l) => l.operation === 'trigger.finish')
        .map((l) => [at(l), (l.fields as { result: unknown }).result]);
      expect(runs).toEqual([
        ['10:00:18', { built: 'c01' }],
        ['10:00:18', { built: 'c02' }],
        ['10:00:18', { built: 'd01' }],
        ['10:00:18', { built: 'c03' }],
        ['10:00:18', { built: 'c04' }],
        ['10:00:18', { built: 'c05' }],
        // Five edits at 10:00:00–08, one sync 30 s after the last, with the last name.
        ['10:00:38', { synced: expect.stringMatching(/^cus_/), name: 'Ada Lovelace' }],
        // The first presence window expired at 10:01:18; the next one ran after its quiet period.
        ['10:02:08', { seen: 'typing 5' }],
        // The reminder, an hour after it was asked for; the cancelled one never ran.
        ['11:00:08', { reminded: 'ada' }],
      ]);
      expect(
        triggers
          .filter((l) => l.operation === 'dispatch.expire' || l.operation === 'dispatch.cancel')
          .map((l) => [at(l), l.operation, (l.fields as { reason: string }).reason]),
      ).toEqual([
        ['10:00:18', 'dispatch.cancel', 'cancelled'],
        ['10:01:18', 'dispatch.expire', 'ttl'],
      ]);
      // Never more than two builds of one repository hold a slot.
      const gates = triggers
        .filter((l) => l.operation === 'dispatch.gate')
        .map((l) => l.fields as { key: string; running: string[] });
      expect(Math.max(...gates.map((g) => g.running.length))).toBe(2);
      expect(gates.some((g) => g.key === 'octo/engine' && g.running.length === 2)).toBe(true);
      const pings = triggers.filter(
        (l) => l.operation === 'dispatch.ping' && (l.fields as { pings: number }).pings === 5,
      );
      expect(pings).toHaveLength(1);
    } finally {
      await walk.close();
    }
  });

  for (const backendCase of backends.filter((b) => b.durable))
    it(`writes the committed fixture's bytes on ${backendCase.name}`, async () => {
      const made = backendCase.create();
      const walk = await deferredWalk({ backend: made.backend });
      try {
        expect(`${(await walk.exportLog()).join('\n')}\n`).toBe(
          readFileSync('fixtures/walk-deferred.jsonl', 'utf8'),
        );
      } finally {
        await walk.close();
        made.cleanup();
      }
    });
});
