// A long-running command (up, work, console) asks its store one question before it starts: a store
// that cannot answer — PostgreSQL not running there, a wrong password, no such database — is then
// refused at start with its typed error (exit 1), not found out later by a worker that logs it every
// second until Ctrl-C, or by a page that fails each request while saying it serves the world.
import type { World } from '../world/world.js';

/** Resolves once the world's store has answered a read; rejects with the store's refusal. */
export async function checkStoreAnswers(world: World): Promise<void> {
  await world.twinNames();
}
