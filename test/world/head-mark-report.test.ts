// A head mark (the root's record of how far a twin's log reached) that cannot be written is
// reported through the world's onError as a typed refusal, never skipped without a word.
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { TwinError } from '../../src/errors.js';
import { VirtualClock } from '../../src/world/clock.js';
import { openWorld } from '../../src/world/world.js';
import { tempDir } from '../support/backends.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function setup(): { root: string; reported: { error: unknown; where: string }[] } {
  const root = tempDir('twinworld-head-mark-');
  dirs.push(root);
  return { root, reported: [] };
}

const put = (n: number) => ({
  operation: 'item.put',
  subjectType: 'item',
  subjectId: `i${n}`,
  fields: { n },
});

describe('head marks that cannot be written', () => {
  it('a root removed while the twin is open is reported as ROOT_NOT_FOUND when it closes', async () => {
    const { root, reported } = setup();
    const world = openWorld({
      root,
      seed: 'mark-removed',
      clock: new VirtualClock('2026-06-01T00:00:00.000Z'),
      onError: (error, where) => reported.push({ error, where }),
    });
    const twin = world.twin('shop');
    await twin.applyWrite(put(1));
    await twin.applyWrite(put(2));
    rmSync(root, { recursive: true, force: true });
    await world.close().catch(() => {});
    const marks = reported.filter((r) => r.where.includes('recording the head of twin "shop"'));
    expect(marks).toHaveLength(1);
    const e = marks[0]!.error as TwinError;
    expect(e).toBeInstanceOf(TwinError);
    expect(e.code).toBe('ROOT_NOT_FOUND');
    expect(e.message).toContain(`the world root ${root} was removed while twin "shop" was open`);
  });

  it('a mark file that cannot be replaced is reported with what it means', async () => {
    const { root, reported } = setup();
    const world = openWorld({
      root,
      seed: 'mark-blocked',
      clock: new VirtualClock('2026-06-01T00:00:00.000Z'),
      onError: (error, where) => reported.push({ error, where }),
    });
    const twin = world.twin('shop');
    await twin.applyWrite(put(1));
    await twin.applyWrite(put(2));
    // The mark's temporary file is a folder now: the write fails (EISDIR) even for root.
    rmSync(join(root, 'twins', 'shop.head'));
    mkdirSync(join(root, 'twins', `shop.head.${process.pid}.tmp`));
    await world.close();
    const e = reported.find((r) => r.where.includes('recording the head'))?.error as TwinError;
    expect(e).toBeInstanceOf(TwinError);
    expect(e.code).toBe('ROOT_READ_ONLY');
    expect(e.message).toMatch(/cannot write .*shop\.head \(EISDIR\).*the commit is kept/);
  });
});
