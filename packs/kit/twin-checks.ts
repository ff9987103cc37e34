// Guards every pack operation shares: the twin must belong to a registered pack (or its writes
// would silently send no webhooks), and endpoint secrets go to world.secrets, never the log.
import { packTwinName, TwinError, type Twin } from '../../src/index.js';

export function requirePackTwin(twin: Twin, packName: string): void {
  for (const pack of twin.world.packs.values()) if (pack.name === packName && packTwinName(pack) === twin.name) return;
  throw new TwinError('INVALID_ARGUMENT', `twin "${twin.name}" is not the ${packName} pack's twin; register it first: registerPack(world, ${packName}.pack)`, { path: 'twin' });
}

/** The reference an endpoint keeps instead of its secret: unique across packs in one world. */
export function secretRefFor(twin: Twin, endpointId: string): string {
  return `${twin.name}/${endpointId}`;
}

/**
 * Stores the secret, runs the write, and takes the secret back out if the write was refused —
 * thrown at once or, for an asynchronous write, rejected later.
 */
export function withStoredSecret<T>(twin: Twin, ref: string, secret: string, write: () => T): T {
  twin.world.secrets.set(ref, secret);
  const refused = (error: unknown): never => {
    twin.world.secrets.delete(ref);
    throw error;
  };
  try {
    const result = write();
    return (result instanceof Promise ? result.catch(refused) : result) as T;
  } catch (error) {
    return refused(error);
  }
}
