// What `twinworld endpoints` and `twinworld trigger` share: the built-in packs that can be driven
// from the command line (those with a `cli` member), checks of the flags they take made before
// any world is opened, and the delivery records this process's commits queue.
import { builtInPacks } from '../../packs/built-in.js';
import { TwinError } from '../errors.js';
import type { PackCli } from '../events/pack-registry.js';
import { packTwinName, registeredPacks } from '../events/pack-registry.js';
import { deliveryOf } from '../events/delivery-records.js';
import type { World } from '../world/world.js';

export interface CliPack {
  readonly name: string;
  /** The pack's twin in a world. */
  readonly twin: string;
  readonly cli: PackCli;
}

/** The built-in packs a user can drive from the command line, by name. */
export function cliPacks(): CliPack[] {
  return builtInPacks.flatMap((p) =>
    p.cli === undefined ? [] : [{ name: p.name, twin: packTwinName(p), cli: p.cli }],
  );
}

export function cliPack(name: string): CliPack {
  const found = cliPacks().find((p) => p.name === name);
  if (found === undefined) {
    const valid = cliPacks().map((p) => p.name);
    throw new TwinError(
      'UNKNOWN_PACK',
      `unknown pack "${name}"; valid packs: ${valid.join(', ')}`,
      {
        path: 'pack',
        details: { valid },
      },
    );
  }
  return found;
}

/** What `--data` looks like, shown when it is malformed. */
export const DATA_EXAMPLE = '{"email":"ada@example.com"}';

/** A delivery record one of this process's commits queued. */
export interface QueuedDelivery {
  readonly id: string;
  readonly pack: string;
  readonly eventType: string;
  readonly endpoint: string;
}

/**
 * Records, in commit order, every delivery queued by this process's commits to any registered
 * pack until `stop()` — other processes' writes are not seen here, so the list is exactly what
 * this command caused.
 */
export function watchQueued(world: World): { readonly queued: QueuedDelivery[]; stop(): void } {
  const queued: QueuedDelivery[] = [];
  const stops: (() => void)[] = [];
  for (const pack of registeredPacks(world).values()) {
    if (pack.events === undefined) continue;
    const recordCreate = `${pack.events.recordType}.create`;
    stops.push(
      world.twin(packTwinName(pack)).use({
        name: 'cli:queued',
        afterCommit(entries) {
          for (const e of entries) {
            if (e.operation !== recordCreate) continue;
            const d = deliveryOf({ fields: e.fields ?? {} });
            queued.push({
              id: e.subjectId,
              pack: pack.name,
              eventType: d.eventType,
              endpoint: `${d.endpointKind}/${d.endpointId}`,
            });
          }
        },
      }),
    );
  }
  return { queued, stop: () => stops.forEach((s) => s()) };
}
