// The world: lazy twins, the clock, seeded ids, and the world carried across async work.
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import KSUID from 'ksuid';
import { isTwinError } from '../../src/errors.js';
import { VirtualClock } from '../../src/world/clock.js';
import { currentWorld, maybeCurrentWorld } from '../../src/world/world.js';
import { openWorld } from '../../src/world/world.js';
import { tempDir } from '../support/backends.js';

const root = tempDir();
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('world', () => {
  it('opens twins lazily as files under <root>/twins and lists them', async () => {
    const world = openWorld({ root });
    expect(existsSync(join(root, 'twins', 'stripe.db'))).toBe(false);
    const twin = world.twin('stripe');
    expect(world.twin('stripe')).toBe(twin);
    // the store opens in the background; the twin's first operation waits for it
    expect(await twin.head()).toBe(0);
    expect(existsSync(join(root, 'twins', 'stripe.db'))).toBe(true);
    expect(await world.twinNames()).toContain('stripe');
    await world.close();
    expect(() => world.twin('stripe')).toThrow(/closed/);
    await expect(twin.head()).rejects.toThrow(/closed/);
  });

  it('refuses bad twin names and a missing root', () => {
    const world = openWorld({ root: ':memory:' });
    for (const bad of ['', '../x', 'A', 'a/b', 'x'.repeat(65)]) {
      try {
        world.twin(bad);
        expect.unreachable();
      } catch (error) {
        expect(isTwinError(error, 'INVALID_ARGUMENT')).toBe(true);
      }
    }
    expect(() => openWorld({} as never)).toThrow(/root/);
  });

  it('stamps writes from the world clock', async () => {
    const clock = new VirtualClock('2026-02-03T04:05:06.007Z');
    const world = openWorld({ root: ':memory:', clock });
    const twin = world.twin('t');
    expect(
      (await twin.applyWrite({ operation: 'a.b', subjectType: 'a', subjectId: '1' })).recordedAt,
    ).toBe('2026-02-03T04:05:06.007Z');
    await clock.advance(60_000);
    const e = await twin.applyWrite({
      operation: 'a.b',
      subjectType: 'a',
      subjectId: '1',
      occurredAt: '2025-12-31T23:59:59.000Z',
    });
    expect(e.recordedAt).toBe('2026-02-03T04:06:06.007Z');
    expect(e.occurredAt).toBe('2025-12-31T23:59:59.000Z');
  });

  it('same seed and clock give the same ids; KSUIDs carry the clock time', () => {
    const make = (seed: string) => {
      const world = openWorld({
        root: ':memory:',
        clock: new VirtualClock('2026-06-01T00:00:00Z'),
        seed,
      });
      return [
        world.ids.ksuid(),
        world.ids.vendorId('cus'),
        world.ids.vendorId('evt', 14),
        world.ids.uuid(),
      ];
    };
    const a = make('s1');
    expect(make('s1')).toEqual(a);
    expect(make('s2')).not.toEqual(a);
    expect(a[1]).toMatch(/^cus_[0-9A-Za-z]{24}$/);
    expect(a[2]).toMatch(/^evt_[0-9A-Za-z]{14}$/);
    expect(a[3]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(KSUID.parse(a[0]!).date.toISOString()).toBe('2026-06-01T00:00:00.000Z');
  });
});

describe('virtual clock', () => {
  it('runs due tasks in time order, ties in scheduling order, each at its own instant', async () => {
    const clock = new VirtualClock(0);
    const ran: string[] = [];
    clock.schedule(300, () => void ran.push(`c@${clock.now()}`));
    clock.schedule(100, () => void ran.push(`a@${clock.now()}`));
    clock.schedule(100, async () => {
      ran.push(`b@${clock.now()}`);
      clock.schedule(clock.now() + 50, () => void ran.push(`d@${clock.now()}`));
    });
    const cancel = clock.schedule(200, () => void ran.push('cancelled'));
    cancel();
    await clock.advance(250);
    expect(ran).toEqual(['a@100', 'b@100', 'd@150']);
    expect(clock.now()).toBe(250);
    await clock.set(1000);
    expect(ran).toEqual(['a@100', 'b@100', 'd@150', 'c@300']);
    await expect(clock.set(10)).rejects.toThrow(/never goes back/);
    await expect(clock.advance(-1)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', path: 'ms' });
  });

  it('refuses a time no date can hold, and stays where it was', async () => {
    const clock = new VirtualClock(Date.UTC(2026, 0, 1));
    const refusal = await clock.advance(Number.MAX_SAFE_INTEGER).catch((e: unknown) => e);
    expect(refusal).toMatchObject({ code: 'INVALID_ARGUMENT', path: 'ms' });
    expect((refusal as Error).message).toMatch(
      /from 2026-01-01T00:00:00\.000Z is past \+275760-09-13T00:00:00\.000Z, the last time a date can hold; the clock may move up to \d+ ms more/,
    );
    await expect(clock.set(9e15)).rejects.toMatchObject({
      path: 'to',
      message: expect.stringMatching(
        /outside the times a date can hold \(-271821-04-20T00:00:00\.000Z to \+275760-09-13T00:00:00\.000Z\); from 2026-01-01T00:00:00\.000Z the clock may move up to \d+ ms more/,
      ),
    });
    expect(clock.now()).toBe(Date.UTC(2026, 0, 1));
    await clock.set(8.64e15);
    expect(new Date(clock.now()).toISOString()).toBe('+275760-09-13T00:00:00.000Z');
    await expect(clock.advance(1)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(() => new VirtualClock(1e16)).toThrow(/outside the times a date can hold/);
  });
});

describe('scope', () => {
  it('work scheduled for later keeps its world even after another becomes active', async () => {
    const a = openWorld({ root: ':memory:' });
    const b = openWorld({ root: ':memory:' });
    const seen: string[] = [];
    await Promise.all([
      a.run(async () => {
        await new Promise((r) => setTimeout(r, 20));
        seen.push(currentWorld() === a ? 'a' : 'other');
      }),
      b.run(async () => {
        await new Promise((r) => setImmediate(r));
        seen.push(currentWorld() === b ? 'b' : 'other');
      }),
    ]);
    expect(seen.sort()).toEqual(['a', 'b']);
    expect(maybeCurrentWorld()).toBeUndefined();
    expect(() => currentWorld()).toThrow(/no world is active/);
  });
});

describe('KSUID encoding', () => {
  it('matches the ksuid package for many random payloads and clamps before the epoch', async () => {
    const { encodeKsuid } = await import('../../src/world/ids.js');
    const { randomBytes } = await import('node:crypto');
    for (let i = 0; i < 2000; i++) {
      const payload = randomBytes(16);
      const ms = 1_400_000_000_000 + Math.floor(Math.random() * 4e12);
      expect(encodeKsuid(ms, payload)).toBe(
        KSUID.fromParts(Math.floor(ms / 1000) * 1000, payload).string,
      );
    }
    expect(encodeKsuid(0, Buffer.alloc(16))).toBe('000000000000000000000000000');
    expect(encodeKsuid(0, Buffer.alloc(16, 0xff))).toBe(
      KSUID.fromParts(1_400_000_000_000, Buffer.alloc(16, 0xff)).string,
    );
  });
});
