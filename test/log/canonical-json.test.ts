// canonicalJson writes exactly what fast-json-stable-stringify (the reference for canonical JSON
// this project began with) writes, on values whose keys are in order — the fast path through
// JSON.stringify — and on values with keys out of order, at any depth, with JSON's odd cases.
import stringify from 'fast-json-stable-stringify';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/log/canonical-json.js';

/** A small seeded PRNG (mulberry32): the same values on every run. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const KEYS = [
  'a',
  'b',
  'Z',
  '_',
  'é',
  '10',
  '2',
  '0',
  '-1',
  'aa',
  'a b',
  '"q"',
  '\u2028',
  '😀',
  '',
];
const SCALARS: unknown[] = [
  0,
  -0,
  1.5,
  -7,
  1e21,
  5e-7,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  true,
  false,
  null,
  undefined,
  '',
  'plain',
  'quote " and \\ back',
  'line\nbreak',
  '\u0000\u001f',
  '\ud83d\ude00',
  '\u2028',
];

function value(rand: () => number, depth: number): unknown {
  const r = rand();
  if (depth > 4 || r < 0.4) return SCALARS[Math.floor(rand() * SCALARS.length)];
  if (r < 0.6) return Array.from({ length: Math.floor(rand() * 4) }, () => value(rand, depth + 1));
  const o: Record<string, unknown> = {};
  const keys = [...KEYS].sort(() => rand() - 0.5).slice(0, Math.floor(rand() * 6));
  // Half the objects are built in sorted order (the fast path), half in shuffled order.
  if (rand() < 0.5) keys.sort();
  for (const k of keys) o[k] = value(rand, depth + 1);
  return o;
}

describe('canonicalJson', () => {
  it('equals fast-json-stable-stringify on 5,000 generated values', () => {
    const rand = prng(16);
    for (let i = 0; i < 5000; i++) {
      const v = value(rand, 0);
      expect(canonicalJson(v)).toBe(stringify(v));
    }
  });

  it('sorts keys that arrive out of order, at every depth', () => {
    expect(canonicalJson({ b: 1, a: { d: [{ z: 1, y: 2 }], c: 3 } })).toBe(
      '{"a":{"c":3,"d":[{"y":2,"z":1}]},"b":1}',
    );
    // V8 lists integer-like keys first: "10" must still come before "2" and "a".
    expect(canonicalJson({ a: 1, 2: 2, 10: 3 })).toBe('{"10":3,"2":2,"a":1}');
  });

  it('follows JSON for toJSON, boxed values, undefined and non-finite numbers', () => {
    const cases: unknown[] = [
      { at: new Date(0), b: undefined },
      [undefined, Number.NaN, () => 1],
      { n: Object(1) as number, s: Object('x') as string },
      { toJSON: () => ({ y: 1, x: 2 }) },
      undefined,
    ];
    for (const c of cases) expect(canonicalJson(c)).toBe(stringify(c));
  });

  it('refuses a cycle as JSON.stringify does', () => {
    const o: Record<string, unknown> = { a: 1 };
    o.self = o;
    expect(() => canonicalJson(o)).toThrow(TypeError);
    const sortedCycle: Record<string, unknown> = { a: 1 };
    sortedCycle.b = sortedCycle;
    expect(() => canonicalJson(sortedCycle)).toThrow(TypeError);
  });
});
