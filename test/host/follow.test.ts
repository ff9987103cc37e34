// Following a store's appends (src/host/follow.ts, under `tail` and `listen`): a hand-over that
// fails is tried again after a poll's pause, from the entry that failed, without waiting for
// another append and without handing over again what went before it.
import { afterEach, expect, it } from 'vitest';
import { followEntries } from '../../src/host/follow.js';
import { openWorld, type World } from '../../src/world/world.js';

const worlds: World[] = [];
afterEach(async () => {
  for (const w of worlds.splice(0)) await w.close();
});

it('goes on from the entry that failed, once, with no append after it', async () => {
  const world = openWorld({ root: ':memory:' });
  worlds.push(world);
  const notes = world.twin('notes');
  const write = (i: number) =>
    notes.applyWrite({
      operation: 'note.set',
      subjectType: 'note',
      subjectId: `n${i}`,
      fields: { i },
    });
  const got: number[] = [];
  const errors: unknown[] = [];
  let failOnce = true;
  const follower = await followEntries(world, {
    twins: ['notes'],
    pollMs: 10,
    onEntry: (e) => {
      if (e.seq === 2 && failOnce) {
        failOnce = false;
        throw new Error('a blip');
      }
      got.push(e.seq);
    },
    onError: (error) => errors.push(error),
  });
  try {
    for (let i = 1; i <= 3; i++) await write(i);
    for (let turn = 0; turn < 200 && got.length < 3; turn++)
      await new Promise((resolve) => setTimeout(resolve, 10));
    expect(got).toEqual([1, 2, 3]);
    expect(errors).toHaveLength(1);
  } finally {
    await follower.stop();
  }
});
