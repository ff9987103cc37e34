// BoundedMap: the resource cache's store — never more than its limit, oldest generation first out.
import { describe, expect, it } from 'vitest';
import { BoundedMap } from '../../src/world/bounded-map.js';

describe('BoundedMap', () => {
  it('never holds more than its limit and keeps the newest keys', () => {
    const m = new BoundedMap<number, number>(10);
    for (let i = 0; i < 1000; i++) {
      m.set(i, i * 2);
      expect(m.size).toBeLessThanOrEqual(10);
      // The newest half is always there.
      for (let j = Math.max(0, i - 4); j <= i; j++) expect(m.get(j)).toBe(j * 2);
    }
    expect(m.has(0)).toBe(false);
    expect(m.get(0)).toBeUndefined();
  });

  it('counts a key set again once, with its newest value, in either generation', () => {
    const m = new BoundedMap<string, string | null>(4);
    m.set('a', 'one');
    m.set('b', null); // young reaches half: a and b become the old generation
    m.set('a', 'two'); // moves a to the young one
    expect(m.size).toBe(2);
    expect(m.get('a')).toBe('two');
    expect(m.has('b')).toBe(true);
    expect(m.get('b')).toBeNull();
  });

  it('deletes from either generation and clears both', () => {
    const m = new BoundedMap<string, number>(4);
    m.set('a', 1);
    m.set('b', 2);
    m.set('c', 3);
    expect(m.delete('a')).toBe(true);
    expect(m.delete('c')).toBe(true);
    expect(m.delete('c')).toBe(false);
    expect(m.size).toBe(1);
    m.clear();
    expect(m.size).toBe(0);
    expect(m.get('b')).toBeUndefined();
  });

  it('refuses a limit it cannot keep', () => {
    expect(() => new BoundedMap(1)).toThrow(/at least 2, got 1/);
    expect(() => new BoundedMap(Number.NaN)).toThrow(RangeError);
  });
});
