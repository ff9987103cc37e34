// Opening a world with every built-in pack registered and a dispatcher attached: what the
// delivery commands (deliveries, attempts, recover, redeliver, send) work on.
import { builtInPacks } from '../../packs/built-in.js';
import { Dispatcher, type DispatcherOptions } from '../events/dispatcher.js';
import { registerPack } from '../events/pack-registry.js';
import type { World } from '../world/world.js';
import { withWorld } from './command.js';
import type { StoreTarget } from './store.js';

/**
 * `create: false` for commands that only read (deliveries, attempts): a missing root is refused.
 * `dispatcher` configures the attached dispatcher: `{ autoDispatch: false }` for commands that
 * only queue work (endpoints, trigger), so a running worker sends it, not this process.
 */
export function withPackWorld<T>(
  where: string | StoreTarget,
  fn: (world: World, dispatcher: Dispatcher) => Promise<T> | T,
  options: { create?: boolean; dispatcher?: DispatcherOptions } = {},
): Promise<T> {
  const run = async (world: World): Promise<T> => {
    for (const pack of builtInPacks) registerPack(world, pack);
    const dispatcher = new Dispatcher(world, options.dispatcher);
    try {
      return await fn(world, dispatcher);
    } finally {
      await dispatcher.close();
    }
  };
  return withWorld(where, run, {
    ...(options.create === undefined ? {} : { create: options.create }),
  });
}
