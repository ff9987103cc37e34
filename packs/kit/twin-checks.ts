// Guards every pack operation shares: the twin must belong to a registered pack (or its writes
// would silently send no webhooks), and endpoint secrets go to world.secrets, never the log.
import { packTwinName, registeredPacks, TwinError, type Twin } from '../../src/index.js';

export function requirePackTwin(twin: Twin, packName: string): void {
  for (const pack of registeredPacks(twin.world).values())
    if (
      (pack.name === packName || (pack as { vendor?: unknown }).vendor === packName) &&
      packTwinName(pack) === twin.name
    )
      return;
  throw new TwinError(
    'INVALID_ARGUMENT',
    `twin "${twin.name}" is not the ${packName} pack's twin; register it first: registerPack(world, ${packName}.pack)`,
    { path: 'twin' },
  );
}

/** The reference an endpoint keeps instead of its secret: unique across packs in one world. */
export function secretRefFor(twin: Twin, endpointId: string): string {
  return `${twin.name}/${endpointId}`;
}

/** Stores the secret, runs the write, and takes the secret back out if the write was refused. */
export async function withStoredSecret<T>(
  twin: Twin,
  ref: string,
  secret: string,
  write: () => Promise<T>,
): Promise<T> {
  await twin.world.secrets.set(ref, secret);
  try {
    return await write();
  } catch (error) {
    await twin.world.secrets.delete(ref);
    throw error;
  }
}
