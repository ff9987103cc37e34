// Which world a call runs in, carried with AsyncLocalStorage so work scheduled for later (a
// dispatch after a write's answer, a timer) keeps its world even if another became active.
import { AsyncLocalStorage } from 'node:async_hooks';
import { TwinError } from '../errors.js';
import type { World } from './world.js';

const storage = new AsyncLocalStorage<World>();

export function runInWorld<T>(world: World, fn: () => T): T {
  return storage.run(world, fn);
}

export function currentWorld(): World {
  const world = storage.getStore();
  if (world === undefined) throw new TwinError('NO_WORLD', 'no world is active here; call world.run(() => …) or pass the world explicitly');
  return world;
}

export function maybeCurrentWorld(): World | undefined {
  return storage.getStore();
}
