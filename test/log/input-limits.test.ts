// Input limits that hold on every way into a log — a write, an import, a replay: well-formed
// UTF-8 only, nesting at most 64 deep (checked without recursion), numbers that survive a round
// trip, `__proto__` refused the same on create and update, real calendar times, and the 1 MiB
// entry limit on imported lines too. Each refusal is typed and names its path; nothing appended.
import { describe, expect, it } from 'vitest';
import { isTwinError } from '../../src/errors.js';
import { MAX_JSON_DEPTH } from '../../src/log/json-value.js';
import { MAX_WRITE_BYTES, type Write } from '../../src/log/write.js';
import { replayLines } from '../../src/world/replay.js';
import { VirtualClock } from '../../src/world/clock.js';
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

/** `levels` nested arrays around a 1: nested(1) is [1]. Built without recursion. */
function nested(levels: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < levels; i++) value = [value];
  return value;
}

/** A log of one valid entry, as lines, for import and replay cases to break. */
async function oneEntryLog(): Promise<Record<string, unknown>> {
  const world = openWorld({
    root: ':memory:',
    seed: 'limits',
    clock: new VirtualClock(Date.UTC(2026, 0, 1)),
  });
  await world.twin('src').applyWrite({ ...base, fields: { name: 'Ada' } });
  const [line] = await collect(world.twin('src').exportLines());
  return JSON.parse(line!) as Record<string, unknown>;
}

async function importRefusal(
  line: string,
): Promise<{ code: string; path: string | undefined; message: string; head: number }> {
  const world = openWorld({ root: ':memory:' });
  const twin = world.twin('copy');
  try {
    await twin.importLines([line]);
  } catch (error) {
    if (!isTwinError(error)) throw error;
    return { code: error.code, path: error.path, message: error.message, head: await twin.head() };
  }
  throw new Error('import was accepted');
}

describe('text is well-formed UTF-8', () => {
  const cases: [string, unknown, string][] = [
    [
      'a lone high surrogate in the subject id',
      { ...base, subjectId: 'cus_\ud800' },
      'write.subjectId',
    ],
    [
      'a lone low surrogate in a field value',
      { ...base, fields: { name: 'a\udc00b' } },
      'write.fields.name',
    ],
    [
      'a lone surrogate in a nested key',
      { ...base, fields: { meta: { ['k\ud800']: 1 } } },
      'write.fields.meta key',
    ],
    [
      'a lone surrogate in a projection id',
      { ...base, projection: { creates: [{ type: 'x', id: '\udbff', fields: {} }] } },
      'write.projection.creates[0].id',
    ],
  ];
  for (const [name, write, path] of cases) {
    it(`refuses ${name}`, async () => {
      const r = await refusal(write);
      expect(r).toMatchObject({ code: 'INVALID_WRITE', path, head: 0 });
      expect(r.message).toMatch(/lone UTF-16 surrogate.*not valid UTF-8/);
    });
  }

  it('accepts paired surrogates (an emoji) and keeps them byte for byte', async () => {
    const world = openWorld({ root: ':memory:', seed: 1 });
    const entry = await world
      .twin('t')
      .applyWrite({ ...base, subjectId: 'cus_😀', fields: { name: '😀' } });
    expect(entry.subjectId).toBe('cus_😀');
    expect((await world.twin('t').get('customer', 'cus_😀'))?.fields).toEqual({ name: '😀' });
  });

  it('refuses a lone surrogate on import and replay, where JSON escapes can spell one', async () => {
    const entry = await oneEntryLog();
    const line = JSON.stringify({ ...entry, subjectId: 'cus_X' }).replace('cus_X', 'cus_\\ud800');
    const r = await importRefusal(line);
    expect(r).toMatchObject({ code: 'IMPORT_MALFORMED_LINE', path: 'line 1.subjectId', head: 0 });
    await expect(replayLines([line])).rejects.toMatchObject({
      code: 'IMPORT_MALFORMED_LINE',
      path: 'line 1.subjectId',
    });
  });
});

describe(`nesting is at most ${MAX_JSON_DEPTH} levels`, async () => {
  it(`accepts ${MAX_JSON_DEPTH} levels and refuses ${MAX_JSON_DEPTH + 1}, naming the path`, async () => {
    // fields is level 1, so `deep` may add 63 more.
    const world = openWorld({ root: ':memory:', seed: 1 });
    await world
      .twin('t')
      .applyWrite({ ...base, fields: { deep: nested(MAX_JSON_DEPTH - 1) } as never });
    const r = await refusal({ ...base, fields: { deep: nested(MAX_JSON_DEPTH) } });
    expect(r).toMatchObject({ code: 'INVALID_WRITE', head: 0 });
    expect(r.path).toBe(`write.fields.deep${'[0]'.repeat(MAX_JSON_DEPTH - 1)}`);
    expect(r.message).toMatch(/nested 65 levels deep, over the limit of 64/);
  });

  it('refuses 200,000 levels with the same typed error: the check itself never recurses', async () => {
    const r = await refusal({ ...base, fields: { deep: nested(200_000) } });
    expect(r).toMatchObject({ code: 'INVALID_WRITE', head: 0 });
    expect(r.message).toMatch(/over the limit of 64/);
  });

  it('refuses a deep line on import and replay as a malformed line, not a stack overflow', async () => {
    const entry = await oneEntryLog();
    const line = JSON.stringify({ ...entry, fields: { deep: 0 } }).replace(
      '"deep":0',
      `"deep":${'['.repeat(5000)}${']'.repeat(5000)}`,
    );
    const r = await importRefusal(line);
    expect(r).toMatchObject({ code: 'IMPORT_MALFORMED_LINE', head: 0 });
    expect(r.message).toMatch(/over the limit of 64/);
    await expect(replayLines([line])).rejects.toMatchObject({ code: 'IMPORT_MALFORMED_LINE' });
  });

  it('still names a cycle as a cycle', async () => {
    const loop: Record<string, unknown> = {};
    loop.again = { loop };
    const r = await refusal({ ...base, fields: { loop } });
    expect(r).toMatchObject({ code: 'INVALID_WRITE', path: 'write.fields.loop.again.loop' });
    expect(r.message).toMatch(/cycle/);
  });
});

describe('numbers survive a round trip', () => {
  it('refuses 1e400 in an imported or replayed line (it parses to Infinity, which JSON stores as null)', async () => {
    const entry = await oneEntryLog();
    const line = JSON.stringify({ ...entry, fields: { amount: 0 } }).replace(
      '"amount":0',
      '"amount":1e400',
    );
    const r = await importRefusal(line);
    expect(r).toMatchObject({
      code: 'IMPORT_MALFORMED_LINE',
      path: 'line 1.fields.amount',
      head: 0,
    });
    expect(r.message).toMatch(/Infinity.*1e400/);
    await expect(replayLines([line])).rejects.toMatchObject({ path: 'line 1.fields.amount' });
    const negative = line.replace('1e400', '-1e400');
    expect((await importRefusal(negative)).path).toBe('line 1.fields.amount');
  });
});

describe('__proto__ keys', () => {
  it('are refused the same way on create and on update (never INTERNAL)', async () => {
    const world = openWorld({ root: ':memory:', seed: 1 });
    const twin = world.twin('t');
    await twin.applyWrite({ ...base, fields: { name: 'Ada' } });
    const fields = JSON.parse('{"__proto__": {"admin": true}}') as Record<string, never>;
    const refusals = [];
    for (const operation of ['customer.create', 'customer.update']) {
      const subjectId = operation === 'customer.create' ? 'cus_2' : 'cus_1';
      try {
        await twin.applyWrite({ operation, subjectType: 'customer', subjectId, fields });
        expect.unreachable();
      } catch (error) {
        expect(isTwinError(error, 'INVALID_WRITE')).toBe(true);
        refusals.push({
          path: (error as { path: string }).path,
          message: (error as Error).message,
        });
      }
    }
    expect(refusals).toEqual([
      {
        path: 'write.fields.__proto__',
        message: expect.stringMatching(/"__proto__" is refused.*rename it/),
      },
      {
        path: 'write.fields.__proto__',
        message: expect.stringMatching(/"__proto__" is refused.*rename it/),
      },
    ]);
    expect(await twin.head()).toBe(1);
    expect((await twin.get('customer', 'cus_1'))?.fields).toEqual({ name: 'Ada' });
  });

  it('are refused in projections and on import', async () => {
    const r = await refusal({
      ...base,
      projection: {
        updates: [{ type: 'x', id: '1', fields: JSON.parse('{"a":{"__proto__":1}}') }],
      },
    });
    expect(r).toMatchObject({
      code: 'INVALID_WRITE',
      path: 'write.projection.updates[0].fields.a.__proto__',
    });
    const entry = await oneEntryLog();
    const line = JSON.stringify({ ...entry, fields: { x: 1 } }).replace('"x":1', '"__proto__":1');
    expect(await importRefusal(line)).toMatchObject({
      code: 'IMPORT_MALFORMED_LINE',
      path: 'line 1.fields.__proto__',
    });
  });
});

describe('times are real calendar instants', () => {
  const bad = [
    '2026-13-45T00:00:00.000Z',
    '2026-02-29T00:00:00Z',
    '2026-04-31T12:00:00Z',
    '2026-01-01T24:00:00Z',
    '2026-01-01T00:60:00Z',
    '2026-01-01T00:00:60Z',
    '2026-01-01T00:00:00+24:00',
  ];
  for (const occurredAt of bad) {
    it(`refuses occurredAt ${occurredAt}`, async () => {
      const r = await refusal({ ...base, occurredAt });
      expect(r).toMatchObject({ code: 'INVALID_WRITE', path: 'write.occurredAt', head: 0 });
      expect(r.message).toMatch(/not a real calendar time/);
    });
  }

  it('accepts leap days and offsets that exist', async () => {
    const world = openWorld({ root: ':memory:', seed: 1 });
    for (const occurredAt of [
      '2024-02-29T23:59:59.999Z',
      '2000-02-29T00:00:00Z',
      '2026-06-30T12:00:00+14:00',
      '2026-01-01T00:00:00-23:59',
    ]) {
      expect((await world.twin('t').applyWrite({ ...base, occurredAt })).occurredAt).toBe(
        occurredAt,
      );
    }
  });

  it('refuses an imported entry whose recordedAt is not a real time', async () => {
    const entry = await oneEntryLog();
    const r = await importRefusal(
      JSON.stringify({ ...entry, recordedAt: '2026-02-30T00:00:00.000Z' }),
    );
    expect(r).toMatchObject({ code: 'IMPORT_MALFORMED_LINE', path: 'line 1.recordedAt', head: 0 });
  });
});

describe('the 1 MiB entry limit holds on import and replay', () => {
  it('refuses a 5 MiB imported entry, naming the line and the size', async () => {
    const entry = await oneEntryLog();
    const line = JSON.stringify({ ...entry, fields: { blob: 'x'.repeat(5 * 1024 * 1024) } });
    const r = await importRefusal(line);
    expect(r).toMatchObject({ code: 'IMPORT_MALFORMED_LINE', path: 'line 1', head: 0 });
    expect(r.message).toMatch(/serializes to 524\d{4} bytes, over the 1048576-byte limit/);
    await expect(replayLines([line])).rejects.toMatchObject({ code: 'IMPORT_MALFORMED_LINE' });
  });

  it('accepts an imported entry just under the limit, as a write would', async () => {
    const entry = await oneEntryLog();
    const line = JSON.stringify({
      ...entry,
      fields: { blob: 'é'.repeat((MAX_WRITE_BYTES - 2000) / 2) },
    });
    const world = openWorld({ root: ':memory:' });
    expect(await world.twin('copy').importLines([line])).toMatchObject({ appended: 1 });
  });
});
