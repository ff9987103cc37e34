// A decide that reads the id it just drew (does cus_… exist yet?) over an asynchronous store: each
// re-run must draw the same ids, or it reads a new key every time and never finishes. On every
// backend, with random ids (a world without a seed) and seeded ones, and with sections on other
// twins drawing ids while one waits for its loads.
import { describe, expect, it } from 'vitest';
import { commit } from '../../src/world/decision.js';
import { RealClock, VirtualClock, type Clock } from '../../src/world/clock.js';
import { RandomIds, SeededIds, type IdSource } from '../../src/world/ids.js';
import { World } from '../../src/world/world.js';
import { backends } from '../support/backends.js';

/** Draws a fresh id, checks no resource holds it, and creates one there (as a pack's create does). */
function create(world: World, twin: string, label: string) {
  return world.twin(twin).applyAtomic((view) => {
    const id = world.ids.vendorId('thing');
    if (view.get('thing', id) !== undefined) throw new Error(`id ${id} is taken`);
    const peer = view.get('thing', `${label}-peer`);
    return commit(
      { operation: 'thing.create', subjectType: 'thing', subjectId: id, fields: { label } },
      { id, peer: peer === undefined },
    );
  });
}

describe('id replay in the id sources', () => {
  const sources: [string, () => IdSource][] = [
    ['random', () => new RandomIds(new VirtualClock(0))],
    ['seeded', () => new SeededIds(new VirtualClock(0), 's')],
  ];
  for (const [name, make] of sources) {
    it(`${name}: a re-run redraws its own ids, and draws made meanwhile are neither taken nor repeated`, () => {
      const ids = make();
      const mark = ids.mark();
      const first = [ids.vendorId('a'), ids.ksuid()];
      ids.release?.(mark);
      // another section draws while this one waits for a load
      const other = ids.mark();
      const meanwhile = ids.vendorId('b');
      ids.release?.(other);
      ids.reset(mark);
      expect([ids.vendorId('a'), ids.ksuid()]).toEqual(first);
      const extension = ids.vendorId('c');
      ids.release?.(mark);
      ids.reset(mark);
      expect([ids.vendorId('a'), ids.ksuid(), ids.vendorId('c')]).toEqual([...first, extension]);
      ids.release?.(mark);
      const later = [ids.vendorId('a'), ids.vendorId('b'), ids.vendorId('c')];
      for (const id of later)
        expect([...first, meanwhile, extension].map((x) => x.slice(2))).not.toContain(id.slice(2));
    });
  }

  for (const [name, make] of [
    ['random', (c: Clock) => new RandomIds(c)],
    ['seeded', (c: Clock) => new SeededIds(c, 's')],
  ] as const) {
    it(`${name}: a re-run reads the clock as its first run did, so ids built from time are drawn again too`, () => {
      const clock = new VirtualClock(1_772_366_400_000);
      const ids = make(clock);
      const mark = ids.mark();
      const first = [ids.timeMs(), ids.ksuid()];
      ids.release?.(mark);
      // the run waited for a read: more than a second passed
      void clock.advance(1_500);
      ids.reset(mark);
      expect([ids.timeMs(), ids.ksuid()]).toEqual(first);
      ids.release?.(mark);
      // outside a section, and in a new one, the clock is read afresh
      expect(ids.timeMs()).toBe(1_772_366_401_500);
      const next = ids.mark();
      expect(ids.timeMs()).toBe(1_772_366_401_500);
      ids.release?.(next);
    });

    it(`${name}: knows the ids its section run minted, whole or at the end of a longer id`, () => {
      const ids = make(new VirtualClock(1_772_366_400_000));
      const outside = ids.vendorId('cus', 14);
      const mark = ids.mark();
      const cus = ids.vendorId('cus', 14);
      const ksuid = ids.ksuid();
      const uuid = ids.uuid();
      const tail12 = ids.vendorId('', 12);
      const tail11 = ids.vendorId('', 11);
      ids.mint?.('dlv_composed');
      expect([cus, ksuid, uuid, tail12, 'dlv_composed'].map((id) => ids.minted?.(id))).toEqual([
        true,
        true,
        true,
        true,
        true,
      ]);
      // Ending with one: a prefix and a KSUID, a node id's twelve characters; eleven are too few.
      expect(ids.minted?.(`ep_${ksuid}`)).toBe(true);
      expect(ids.minted?.(`U_kgDO${tail12}`)).toBe(true);
      expect(ids.minted?.(`x_${tail11}`)).toBe(false);
      // Not minted in this run: drawn before it, a stranger, a part of a minted id.
      expect(ids.minted?.(outside)).toBe(false);
      expect(ids.minted?.('cus_unknown')).toBe(false);
      expect(ids.minted?.(cus.slice(0, 10))).toBe(false);
      ids.release?.(mark);
      // Between runs no section is running: nothing counts as minted.
      expect(ids.minted?.(cus)).toBe(false);
      // A run again starts empty and mints what it draws again.
      ids.reset(mark);
      expect(ids.minted?.(cus)).toBe(false);
      expect(ids.vendorId('cus', 14)).toBe(cus);
      expect(ids.minted?.(cus)).toBe(true);
      expect(ids.minted?.('dlv_composed')).toBe(false);
      ids.release?.(mark);
    });
  }

  it('seeded: without other draws in between, the bytes are those of rewinding the stream', () => {
    const rewound = new SeededIds(new VirtualClock(0), 'x');
    const expected = [rewound.vendorId('a'), rewound.vendorId('b'), rewound.vendorId('c')];
    const ids = new SeededIds(new VirtualClock(0), 'x');
    const mark = ids.mark();
    ids.vendorId('a');
    ids.vendorId('z');
    ids.release?.(mark);
    ids.reset(mark);
    // the re-run draws less than the first run did: the rest goes to whoever draws next
    const again = ids.vendorId('a');
    ids.release?.(mark);
    expect([again, ids.vendorId('b'), ids.vendorId('c')]).toEqual(expected);
  });
});

/** A clock a second further on at every reading, as a loaded host's is between a section's runs. */
class RushingClock implements Clock {
  private at = Date.parse('2026-03-01T00:00:00Z');
  now(): number {
    return (this.at += 1_001);
  }
  schedule(): () => void {
    return () => {};
  }
}

for (const backendCase of backends) {
  describe(`decides that read what they drew: ${backendCase.name}`, () => {
    it('an id built from the clock (a KSUID) is the same in every run of its section', async () => {
      const made = backendCase.create();
      const world = new World({
        root: ':memory:',
        backend: made.backend,
        clock: new RushingClock(),
      });
      let runs = 0;
      try {
        const { result } = await world.twin('k').applyAtomic((view) => {
          runs++;
          const id = `thing_${world.ids.ksuid()}`;
          if (view.get('thing', id) !== undefined) throw new Error(`id ${id} is taken`);
          return commit(
            { operation: 'thing.create', subjectType: 'thing', subjectId: id, fields: {} },
            id,
          );
        });
        expect((await world.twin('k').entries()).map((e) => e.subjectId)).toEqual([result]);
        // once, or again after its read: never a new key each run
        expect(runs).toBeLessThanOrEqual(3);
      } finally {
        await world.close();
        made.cleanup();
      }
    });

    for (const seeded of [false, true]) {
      it(`${seeded ? 'seeded' : 'random'} ids: creates finish, one entry each, ids unique, with other twins drawing meanwhile`, async () => {
        const made = backendCase.create();
        const world = new World({
          root: ':memory:',
          backend: made.backend,
          clock: new RealClock(),
          ...(seeded ? { seed: 'replay' } : {}),
        });
        try {
          const twins = ['a', 'b', 'c', 'd'];
          const results = await Promise.all(
            twins.flatMap((twin) =>
              Array.from({ length: 5 }, (_, i) => create(world, twin, `${twin}${i}`)),
            ),
          );
          const ids = results.map((r) => r.result.id);
          expect(new Set(ids).size).toBe(ids.length);
          for (const twin of twins) {
            const entries = await world.twin(twin).entries();
            expect(entries.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5]);
            // each entry's subject is the id its decide drew and checked
            for (const e of entries) expect(ids).toContain(e.subjectId);
          }
        } finally {
          await world.close();
          made.cleanup();
        }
      });
    }
  });
}
