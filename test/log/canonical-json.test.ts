// canonicalJson writes exactly what fast-json-stable-stringify (the reference for canonical JSON
// this project began with) writes, on values whose keys are in order — the fast path through
// JSON.stringify — and on values with keys out of order, at any depth, with JSON's odd cases.
import stringify from 'fast-json-stable-stringify';
import { createHash } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { canonicalJson, canonicalOwned, sha256Hex } from '../../src/log/canonical-json.js';

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
    const many = Object.fromEntries(
      Array.from({ length: 30 }, (_, i) => [`k${String.fromCharCode(122 - i)}`, i]),
    );
    expect(canonicalJson(many)).toBe(stringify(many));
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
    expect(() => canonicalJson(o)).toThrow(new TypeError('Converting circular structure to JSON'));
    const sortedCycle: Record<string, unknown> = { a: 1 };
    sortedCycle.b = sortedCycle;
    expect(() => canonicalJson(sortedCycle)).toThrow(TypeError);
  });
});

describe('canonicalJson takes the fast path exactly when it may', () => {
  // The fast path is one JSON.stringify call over the whole value; the careful path never makes it.
  const wroteWhole = (value: unknown): boolean => {
    const spy = vi.spyOn(JSON, 'stringify');
    try {
      canonicalJson(value);
      return spy.mock.calls.some((call) => call[0] === value && call.length === 1);
    } finally {
      spy.mockRestore();
    }
  };
  const nest = (depth: number): unknown => {
    let v: unknown = { leaf: true };
    for (let i = 0; i < depth; i++) v = { a: v };
    return v;
  };

  it('a value whose keys ascend at every depth is written by JSON.stringify in one call', () => {
    expect(wroteWhole({ a: [{ b: 1, c: 2 }, 3], d: { e: null } })).toBe(true);
    expect(wroteWhole([1, 'x', null])).toBe(true);
    expect(wroteWhole(Object.assign(Object.create(null) as object, { a: 1, b: 2 }))).toBe(true);
    expect(wroteWhole(nest(100))).toBe(true);
  });

  it('a key out of order anywhere, a class instance, toJSON or a depth past 100 takes the careful path', () => {
    expect(wroteWhole({ b: 1, a: 2 })).toBe(false);
    expect(wroteWhole({ a: { c: 1, b: 2 } })).toBe(false);
    expect(wroteWhole({ a: [{ c: 1, b: 2 }] })).toBe(false);
    expect(wroteWhole([{ c: 1, b: 2 }])).toBe(false);
    expect(
      wroteWhole({
        a: new (class Point {
          x = 1;
        })(),
      }),
    ).toBe(false);
    expect(wroteWhole({ a: { toJSON: () => 1 } })).toBe(false);
    expect(wroteWhole(nest(101))).toBe(false);
    // Depth counts through arrays too.
    let arrays: unknown = { leaf: true };
    for (let i = 0; i < 101; i++) arrays = [arrays];
    expect(wroteWhole(arrays)).toBe(false);
  });
});

describe('canonicalOwned', () => {
  it('writes what canonicalJson writes and copies what JSON.parse of it would give', () => {
    const rand = prng(29);
    for (let i = 0; i < 3000; i++) {
      const v = value(rand, 0);
      if (v === null || typeof v !== 'object') continue;
      const { json, copy } = canonicalOwned(v);
      expect(json).toBe(stringify(v));
      expect(copy).toStrictEqual(JSON.parse(json));
    }
  });

  it('keeps an own "__proto__" key as the data it is', () => {
    const parsed = JSON.parse('{"b":1,"__proto__":{"x":1},"a":[{"__proto__":2}]}') as object;
    const { json, copy } = canonicalOwned(parsed);
    expect(json).toBe('{"__proto__":{"x":1},"a":[{"__proto__":2}],"b":1}');
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(Object.keys(copy as object)).toEqual(['__proto__', 'a', 'b']);
    expect(canonicalJson(parsed)).toBe(json);
  });

  it('shares nothing with the value it copied', () => {
    const inner = { y: [1, { z: 2 }], x: -0 };
    const v = { b: inner, a: 'text' };
    const { copy } = canonicalOwned(v);
    inner.y.push(3);
    (inner.y[1] as { z: number }).z = 9;
    expect(copy).toStrictEqual({ a: 'text', b: { x: 0, y: [1, { z: 2 }] } });
    expect(Object.is((copy as { b: { x: number } }).b.x, 0)).toBe(true);
    // Its keys are in canonical order, so it is written canonically on the fast path.
    expect(JSON.stringify(copy)).toBe('{"a":"text","b":{"x":0,"y":[1,{"z":2}]}}');
  });
});

describe('sha256Hex', () => {
  it('is SHA-256 of the UTF-8 text as 64 lowercase hex digits', () => {
    expect(sha256Hex('abc')).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
    expect(sha256Hex('é')).toBe(
      createHash('sha256').update(Buffer.from('é', 'utf8')).digest('hex'),
    );
  });
});
