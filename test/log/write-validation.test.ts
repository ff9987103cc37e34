// Every refusal of a bad write: a typed error naming the path, and nothing appended.
import { describe, expect, it } from 'vitest';
import { isTwinError } from '../../src/errors.js';
import { MAX_WRITE_BYTES, type Write } from '../../src/log/write.js';
import { openWorld } from '../../src/world/world.js';
import { collect } from '../support/backends.js';

const base = { operation: 'customer.create', subjectType: 'customer', subjectId: 'cus_1' };

async function refusal(
  write: unknown,
): Promise<{ code: string; path: string | undefined; message: string; head: number }> {
  const world = openWorld({ root: ':memory:', seed: 1 });
  const twin = world.twin('t');
  try {
    await twin.applyWrite(write as Write);
  } catch (error) {
    if (!isTwinError(error)) throw error;
    return { code: error.code, path: error.path, message: error.message, head: await twin.head() };
  }
  throw new Error('write was accepted');
}

describe('write validation', () => {
  const cyclic: Record<string, unknown> = { a: 1 };
  cyclic.self = { back: cyclic };
  const cases: [string, unknown, string, RegExp][] = [
    [
      'undefined value',
      { ...base, fields: { name: undefined } },
      'write.fields.name',
      /undefined.*omit the key or use null/,
    ],
    ['NaN', { ...base, fields: { amount: NaN } }, 'write.fields.amount', /NaN.*finite number/],
    [
      'Infinity',
      { ...base, fields: { nested: { amount: Infinity } } },
      'write.fields.nested.amount',
      /Infinity/,
    ],
    [
      '-Infinity in an array',
      { ...base, fields: { list: [1, -Infinity] } },
      'write.fields.list[1]',
      /-Infinity/,
    ],
    [
      'a function',
      { ...base, fields: { fn: () => 1 } },
      'write.fields.fn',
      /a function.*store data/,
    ],
    ['a cycle', { ...base, fields: { root: cyclic } }, 'write.fields.root.self.back', /cycle/],
    ['a BigInt', { ...base, fields: { big: 10n } }, 'write.fields.big', /BigInt.*string/],
    ['a Date', { ...base, fields: { when: new Date(0) } }, 'write.fields.when', /ISO string/],
    ['a sparse array', { ...base, fields: { list: [1, , 3] } }, 'write.fields.list[1]', /null/],
    [
      'missing subject type',
      { operation: 'x.create', subjectId: 'a' },
      'write.subjectType',
      /missing/,
    ],
    [
      'missing subject id',
      { operation: 'x.create', subjectType: 'x' },
      'write.subjectId',
      /missing/,
    ],
    ['empty subject id', { ...base, subjectId: '' }, 'write.subjectId', /missing/],
    ['missing operation', { subjectType: 'x', subjectId: 'a' }, 'write.operation', /missing/],
    ['unknown top-level key', { ...base, feilds: {} }, 'write.feilds', /unknown key "feilds"/],
    [
      'unknown projection key',
      { ...base, projection: { upserts: [] } },
      'write.projection.upserts',
      /allowed: creates, updates, deletes/,
    ],
    [
      'projection entry without id',
      { ...base, projection: { creates: [{ type: 'x', fields: {} }] } },
      'write.projection.creates[0].id',
      /missing/,
    ],
    [
      'projection entry with unknown key',
      { ...base, projection: { deletes: [{ type: 'x', id: 'a', fields: {} }] } },
      'write.projection.deletes[0].fields',
      /unknown key/,
    ],
    [
      'projection that is not an array',
      { ...base, projection: { updates: { type: 'x' } } },
      'write.projection.updates',
      /array/,
    ],
    [
      'non-JSON in projection fields',
      { ...base, projection: { updates: [{ type: 'x', id: 'a', fields: { n: NaN } }] } },
      'write.projection.updates[0].fields.n',
      /NaN/,
    ],
    [
      'fields that are not an object',
      { ...base, fields: [1, 2] },
      'write.fields',
      /plain JSON object/,
    ],
    [
      'delete with fields',
      { ...base, delete: true, fields: {} },
      'write.fields',
      /send the delete alone/,
    ],
    ['bad occurredAt', { ...base, occurredAt: 'yesterday' }, 'write.occurredAt', /ISO 8601/],
    ['not an object', 'customer.create', 'write', /must be an object/],
  ];
  for (const [name, write, path, message] of cases) {
    it(`refuses ${name}`, async () => {
      const r = await refusal(write);
      expect(r.code).toBe('INVALID_WRITE');
      expect(r.path).toBe(path);
      expect(r.message).toMatch(message);
      expect(r.head).toBe(0);
    });
  }

  it(`refuses a payload over ${MAX_WRITE_BYTES} bytes with its size`, async () => {
    const r = await refusal({ ...base, fields: { blob: 'x'.repeat(MAX_WRITE_BYTES) } });
    expect(r.code).toBe('PAYLOAD_TOO_LARGE');
    expect(r.message).toMatch(/over the 1048576-byte limit/);
    expect(r.head).toBe(0);
  });

  it('accepts a payload just under the limit', async () => {
    const world = openWorld({ root: ':memory:', seed: 1 });
    const entry = await world
      .twin('t')
      .applyWrite({ ...base, fields: { blob: 'x'.repeat(MAX_WRITE_BYTES - 1000) } });
    expect(entry.seq).toBe(1);
  });

  it('refuses a bad write among several and appends none of them', async () => {
    const world = openWorld({ root: ':memory:', seed: 1 });
    const twin = world.twin('t');
    await expect(
      twin.applyAtomic(() => [base, { ...base, subjectId: 'cus_2', fields: { x: NaN } }]),
    ).rejects.toThrow(/writes\[1\]\.fields\.x/);
    expect(await twin.head()).toBe(0);
    expect(await twin.get('customer', 'cus_1')).toBeUndefined();
  });

  it('does not let a caller change history by mutating its object afterwards', async () => {
    const world = openWorld({ root: ':memory:', seed: 1 });
    const twin = world.twin('t');
    const fields = { name: 'Ada', tags: ['a'] };
    await twin.applyWrite({ ...base, fields });
    fields.name = 'Eve';
    fields.tags.push('b');
    expect((await twin.get('customer', 'cus_1'))?.fields).toEqual({ name: 'Ada', tags: ['a'] });
    expect((await twin.entries())[0]?.fields).toEqual({ name: 'Ada', tags: ['a'] });
  });
});

describe('entry lines', () => {
  it('the assembled line is exactly the canonical JSON of the entry, for every shape of write', async () => {
    const { canonicalJson } = await import('../../src/log/canonical-json.js');
    const world = openWorld({ root: ':memory:', seed: 'lines' });
    const twin = world.twin('t');
    const writes: Write[] = [
      { ...base, fields: { z: 1, a: { y: [3, { d: 1, c: 'é\u2028"' }], b: null } } },
      { ...base, delete: true, actor: 'operator', occurredAt: '2026-01-01T00:00:00.000Z' },
      { ...base, delete: false, fields: {} },
      {
        ...base,
        projection: {
          updates: [{ type: 'x', id: '1', fields: { b: 1, a: 2 } }],
          deletes: [{ type: 'y', id: '2' }],
        },
      },
      { operation: 'a.b', subjectType: 'a', subjectId: 'quote"and\\slash' },
    ];
    for (const w of writes) await twin.applyWrite(w);
    const lines = await collect(twin.exportLines());
    (await twin.entries()).forEach((entry, i) => expect(lines[i]).toBe(canonicalJson(entry)));
    expect((await twin.entries())[1]).not.toHaveProperty('fields');
  });
});
