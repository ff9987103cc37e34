// The state hash on its own: deleted resources leave no trace, every other part of a live
// resource counts, and keys sort by code point (SQLite's BINARY order) across the surrogate range.
import { describe, expect, it } from 'vitest';
import type { Resource } from '../../src/state/resource.js';
import { compareKeys, compareResources, stateHash } from '../../src/state/state-hash.js';

const r = (
  type: string,
  id: string,
  fields: Resource['fields'] = {},
  version = 1,
  deleted = false,
): Resource => ({ type, id, version, deleted, fields });

describe('stateHash', () => {
  it('a deleted resource hashes as if it were absent', () => {
    const live = [r('customer', 'a', { n: 1 }), r('customer', 'c', { n: 3 })];
    expect(stateHash([live[0]!, r('customer', 'b', { n: 2 }, 4, true), live[1]!])).toBe(
      stateHash(live),
    );
    expect(stateHash([r('customer', 'b', {}, 2, true)])).toBe(stateHash([]));
  });

  it('type, id, version and fields each change the hash', () => {
    const base = stateHash([r('customer', 'a', { n: 1 })]);
    for (const other of [
      r('invoice', 'a', { n: 1 }),
      r('customer', 'b', { n: 1 }),
      r('customer', 'a', { n: 1 }, 2),
      r('customer', 'a', { n: 2 }),
    ])
      expect(stateHash([other])).not.toBe(base);
    expect(base).toMatch(/^sha256:[0-9a-f]{64}$/);
    // field order does not: the JSON is canonical
    expect(stateHash([r('customer', 'a', { x: 1, y: 2 })])).toBe(
      stateHash([r('customer', 'a', { y: 2, x: 1 })]),
    );
  });
});

describe('compareKeys', () => {
  it("orders by code point, as SQLite's BINARY collation orders UTF-8, surrogates after U+E000–U+FFFF", () => {
    const keys = ['b', 'a', 'ab', '', '\uffff', '\ue000', '\u{1f600}', '\ud7ff', 'Z'];
    const sorted = [...keys].sort(compareKeys);
    expect(sorted).toEqual(
      [...keys].sort((x, y) => Buffer.compare(Buffer.from(x, 'utf8'), Buffer.from(y, 'utf8'))),
    );
    expect(sorted).toEqual(['', 'Z', 'a', 'ab', 'b', '\ud7ff', '\ue000', '\uffff', '\u{1f600}']);
    expect(compareKeys('same', 'same')).toBe(0);
    expect(Math.sign(compareKeys('a', 'ab'))).toBe(-1);
    expect(Math.sign(compareKeys('ab', 'a'))).toBe(1);
  });

  it('compareResources orders by type, then id', () => {
    const list = [r('b', '1'), r('a', '2'), r('a', '10'), r('a', '1')];
    expect(list.sort(compareResources).map((x) => `${x.type}/${x.id}`)).toEqual([
      'a/1',
      'a/10',
      'a/2',
      'b/1',
    ]);
  });
});
