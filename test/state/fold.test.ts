// The per-entry fold on its own: projections that touch the subject or one resource twice see
// the step before, updates keep what they do not change, every produced value is deeply frozen
// (including ones made by projections and deletions of unknown ids), and replay's plain producer
// and the live frozen producer give the same values as immer's produce, which live twins used
// before (kept here as the reference).
import { freeze, produce } from 'immer';
import { describe, expect, it } from 'vitest';
import type { Entry } from '../../src/log/write.js';
import {
  foldEntry,
  frozenProducer,
  plainProducer,
  resourceKey,
  type Resource,
  type ResourceProducer,
} from '../../src/state/resource.js';
import { VirtualClock } from '../../src/world/clock.js';
import { openWorld } from '../../src/world/world.js';

/** The fold live twins ran on immer: frozen values, unchanged parts shared through drafts. */
const immerProducer: ResourceProducer = {
  merge(prev, type, id, seq, fields) {
    if (prev === undefined || prev.deleted)
      return freeze({ type, id, version: seq, deleted: false, fields }, true);
    return produce(prev, (draft) => {
      draft.version = seq;
      Object.assign(draft.fields, fields);
    });
  },
  replace(type, id, seq, fields) {
    return freeze({ type, id, version: seq, deleted: false, fields }, true);
  },
  markDeleted(prev, type, id, seq) {
    if (prev === undefined)
      return freeze({ type, id, version: seq, deleted: true, fields: {} }, true);
    return produce(prev, (draft) => {
      draft.version = seq;
      draft.deleted = true;
    });
  },
};

let seq = 0;
function entry(e: Partial<Entry> & Pick<Entry, 'subjectType' | 'subjectId'>): Entry {
  seq++;
  return {
    operation: 'x.y',
    occurredAt: '2026-01-01T00:00:00.000Z',
    actor: 'api',
    seq,
    writeId: `w${seq}`,
    twin: 't',
    recordedAt: '2026-01-01T00:00:00.000Z',
    ...e,
  } as Entry;
}

/** Folds entries into a map with `producer`, as a twin or replay would. */
function foldAll(entries: Entry[], producer: ResourceProducer): Map<string, Resource> {
  const state = new Map<string, Resource>();
  for (const e of entries)
    for (const next of foldEntry(e, (t, i) => state.get(resourceKey(t, i)), producer))
      state.set(resourceKey(next.type, next.id), next);
  return state;
}

const history = (): Entry[] => (
  (seq = 0),
  [
    entry({
      subjectType: 'invoice',
      subjectId: 'in_1',
      fields: { total: 10, lines: [{ sku: 'a' }] },
    }),
    // the projection updates its own subject: it must see the subject's new value
    entry({
      subjectType: 'invoice',
      subjectId: 'in_1',
      fields: { status: 'open' },
      projection: { updates: [{ type: 'invoice', id: 'in_1', fields: { total: 12 } }] },
    }),
    // a projection creates a resource, then updates it in the same entry
    entry({
      subjectType: 'customer',
      subjectId: 'cus_1',
      fields: { name: 'Ada' },
      projection: {
        creates: [{ type: 'card', id: 'c1', fields: { last4: '4242', meta: { brand: 'visa' } } }],
        updates: [{ type: 'card', id: 'c1', fields: { default: true } }],
      },
    }),
    // a projection updates an existing resource: it keeps the fields it does not name
    entry({
      subjectType: 'payment',
      subjectId: 'pay_1',
      fields: { amount: 5 },
      projection: { updates: [{ type: 'invoice', id: 'in_1', fields: { paid: 5 } }] },
    }),
    // deletes: a known resource, and one never seen
    entry({ subjectType: 'card', subjectId: 'c1', delete: true }),
    entry({ subjectType: 'ghost', subjectId: 'g1', delete: true }),
    entry({
      subjectType: 'payment',
      subjectId: 'pay_2',
      fields: { amount: 1 },
      projection: { deletes: [{ type: 'payment', id: 'pay_1' }] },
    }),
  ]
);

describe('foldEntry', () => {
  it('projections see the step before them, on the subject and on other resources', () => {
    const state = foldAll(history(), frozenProducer);
    expect(state.get(resourceKey('invoice', 'in_1'))!.fields).toEqual({
      total: 12,
      lines: [{ sku: 'a' }],
      status: 'open',
      paid: 5,
    });
    expect(state.get(resourceKey('card', 'c1'))).toMatchObject({
      deleted: true,
      fields: { last4: '4242', meta: { brand: 'visa' }, default: true },
    });
    expect(state.get(resourceKey('payment', 'pay_1'))).toMatchObject({ deleted: true, version: 7 });
  });

  it('yields the subject first, then each projected resource in order', () => {
    const e = entry({
      subjectType: 'a',
      subjectId: '1',
      fields: {},
      projection: {
        creates: [{ type: 'b', id: '1', fields: {} }],
        updates: [{ type: 'c', id: '1', fields: { x: 1 } }],
        deletes: [{ type: 'd', id: '1' }],
      },
    });
    expect(foldEntry(e, () => undefined).map((r) => `${r.type}/${r.id}:${r.deleted}`)).toEqual([
      'a/1:false',
      'b/1:false',
      'c/1:false',
      'd/1:true',
    ]);
  });

  it('the frozen (live) and plain (replay) producers give the same values as immer, keys in the same order', () => {
    const reference = foldAll(history(), immerProducer);
    for (const producer of [frozenProducer, plainProducer]) {
      const state = foldAll(history(), producer);
      expect([...state.keys()].sort()).toEqual([...reference.keys()].sort());
      for (const [key, value] of reference) {
        expect(state.get(key), key).toEqual(value);
        expect(JSON.stringify(state.get(key)), key).toBe(JSON.stringify(value));
      }
    }
  });

  it('the frozen producer shares what an entry leaves unchanged with the previous version', () => {
    const before = foldAll(history(), frozenProducer).get(resourceKey('invoice', 'in_1'))!;
    const [after] = foldEntry(
      entry({ subjectType: 'invoice', subjectId: 'in_1', fields: { status: 'paid' } }),
      () => before,
      frozenProducer,
    );
    expect(after!.fields.status).toBe('paid');
    expect(Object.isFrozen(after) && Object.isFrozen(after!.fields)).toBe(true);
    expect((after!.fields as { lines: object }).lines).toBe(
      (before.fields as { lines: object }).lines,
    );
  });

  it('every value the frozen producer makes is deeply frozen', () => {
    const state = foldAll(history(), frozenProducer);
    for (const r of state.values()) {
      expect(Object.isFrozen(r), `${r.type}/${r.id}`).toBe(true);
      expect(Object.isFrozen(r.fields), `${r.type}/${r.id} fields`).toBe(true);
    }
    expect(
      Object.isFrozen((state.get(resourceKey('card', 'c1'))!.fields as { meta: object }).meta),
    ).toBe(true);
  });
});

describe('in a live twin, values made by projections and deletions are deeply frozen too', () => {
  it('a projection-created resource and a deleted unknown id, read back at once', async () => {
    const world = openWorld({
      root: ':memory:',
      clock: new VirtualClock('2026-01-01T00:00:00Z'),
      seed: 'fold',
    });
    const twin = world.twin('t');
    await twin.applyWrite({
      operation: 'customer.create',
      subjectType: 'customer',
      subjectId: 'cus_1',
      fields: { n: 1 },
      projection: { creates: [{ type: 'card', id: 'c1', fields: { meta: { brand: 'visa' } } }] },
    });
    await twin.applyWrite({
      operation: 'ghost.delete',
      subjectType: 'ghost',
      subjectId: 'g1',
      delete: true,
    });
    const card = (await twin.get('card', 'c1'))!;
    expect(Object.isFrozen(card.fields)).toBe(true);
    expect(Object.isFrozen((card.fields as { meta: object }).meta)).toBe(true);
    const ghost = (await twin.get('ghost', 'g1'))!;
    expect(ghost.deleted).toBe(true);
    expect(Object.isFrozen(ghost.fields)).toBe(true);
  });
});
