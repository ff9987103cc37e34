// The kit's id shapes (GitHub's integers, Slack's upper-case ids) are drawn from the world's id
// source and registered as minted in the section run that drew them, so an optimistic PostgreSQL
// section takes a resource created under one for new (IdSource.minted, docs/throughput.md).
import { describe, expect, it } from 'vitest';
import { numericId, upperId } from '../../packs/kit/ids.js';
import { VirtualClock } from '../../src/world/clock.js';
import { RandomIds, SeededIds } from '../../src/world/ids.js';

describe('kit ids', () => {
  for (const ids of [new RandomIds(new VirtualClock(0)), new SeededIds(new VirtualClock(0), 'k')]) {
    it(`${ids.constructor.name}: a GitHub integer and a Slack id are minted in the run that drew them`, () => {
      const before = numericId(ids);
      const mark = ids.mark();
      const n = numericId(ids);
      const team = upperId(ids, 'T');
      expect(ids.minted(String(n))).toBe(true);
      expect(ids.minted(team)).toBe(true);
      expect(ids.minted(String(before))).toBe(false);
      expect(String(n)).toMatch(/^[1-9][0-9]{8}$/);
      expect(team).toMatch(/^T[0-9A-Z]{10}$/);
      ids.release(mark);
    });
  }
});
