// A pack: one vendor's twin, declared as data — its indexes, its events, and the operations a
// user can ask of it. registerPack wires it into a world: indexes declared, fan-out installed.
import { TwinError } from '../errors.js';
import type { IndexDeclaration } from '../state/indexes.js';
import type { EventsDeclaration } from './declaration.js';
import { validateEventsDeclaration } from './declaration.js';
import { installFanOut, EVENTS_INDEX } from './fan-out.js';
import { STATE_INDEX } from './records.js';
import { DUE_FIELD, DUE_INDEX } from '../work/lease.js';
import type { Twin, TwinHost } from '../world/twin.js';

export interface Pack {
  /** The vendor, e.g. "stripe"; also the default twin name. */
  readonly name: string;
  readonly twin?: string;
  readonly description?: string;
  readonly indexes?: readonly IndexDeclaration[];
  readonly events?: EventsDeclaration;
}

const registries = new WeakMap<TwinHost, Map<string, Pack>>();

/** The packs registered in a world, by name, in registration order. */
export function registeredPacks(world: TwinHost): ReadonlyMap<string, Pack> {
  return registries.get(world) ?? new Map();
}

export function packTwinName(pack: Pack): string {
  return pack.twin ?? pack.name;
}

export function registerPack(world: TwinHost, pack: Pack): Twin {
  if (
    pack === null ||
    typeof pack !== 'object' ||
    typeof pack.name !== 'string' ||
    pack.name === ''
  ) {
    throw new TwinError('INVALID_CONFIG', 'a pack needs a non-empty name', { path: 'pack.name' });
  }
  let packs = registries.get(world);
  if (packs === undefined) registries.set(world, (packs = new Map()));
  const existing = packs.get(pack.name);
  if (existing !== undefined) {
    if (existing === pack) return world.twin(packTwinName(pack));
    throw new TwinError(
      'INVALID_CONFIG',
      `a different pack named "${pack.name}" is already registered in this world`,
      { path: 'pack.name' },
    );
  }
  if (pack.events !== undefined)
    validateEventsDeclaration(pack.events, `packs.${pack.name}.events`);
  const twin = world.twin(packTwinName(pack));
  for (const index of pack.indexes ?? []) twin.declareIndex(index);
  if (pack.events !== undefined) {
    for (const kind of pack.events.endpoints)
      twin.declareIndex({
        type: kind.type,
        name: EVENTS_INDEX,
        field: kind.eventsField,
        emptyKey: '*',
      });
    twin.declareIndex({ type: pack.events.recordType, name: STATE_INDEX, field: 'state' });
    twin.declareIndex({ type: pack.events.recordType, name: DUE_INDEX, field: DUE_FIELD });
    installFanOut(twin, pack.name, pack.events);
  }
  packs.set(pack.name, pack);
  return twin;
}

export function getPack(world: TwinHost, name: string): Pack {
  const pack = registeredPacks(world).get(name);
  if (pack === undefined) {
    throw new TwinError(
      'UNKNOWN_PACK',
      `no pack "${name}" is registered; registered: ${[...registeredPacks(world).keys()].join(', ') || 'none'}`,
      { path: 'pack' },
    );
  }
  return pack;
}
