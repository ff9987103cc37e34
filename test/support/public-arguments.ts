// Shared by the public-arguments tests: the refusal a call ends in (thrown or rejected), and
// throwaway in-memory worlds closed after each test.
import { afterEach } from 'vitest';
import { VirtualClock, type Clock } from '../../src/world/clock.js';
import { openWorld, type World } from '../../src/world/world.js';

/** The error a call throws or rejects with; undefined when it went through. */
export async function refusal(call: () => unknown): Promise<unknown> {
  try {
    await call();
  } catch (error) {
    return error;
  }
  return undefined;
}

/** Call at a test file's top level: opens in-memory worlds that are closed after each test. */
export function memoryWorlds(): (seed: string, clock?: Clock) => World {
  const worlds: World[] = [];
  afterEach(async () => {
    for (const w of worlds.splice(0)) await w.close();
  });
  return (seed, clock = new VirtualClock(0)) => {
    const w = openWorld({ root: ':memory:', clock, seed });
    worlds.push(w);
    return w;
  };
}
