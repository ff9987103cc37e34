// Finding webhook endpoints across the packs a world has registered, by id: what `twinworld
// endpoints disable|enable|remove`, `listen` and the console share, so each refuses an unknown or
// ambiguous id the same way.
import { TwinError } from '../errors.js';
import type { World } from '../world/world.js';
import { recentSuccess, type RecentSuccess } from './endpoint-success.js';
import { endpointHealthKind, type HealthState } from './health/endpoint-health.js';
import { packTwinName, registeredPacks, type EndpointSummary } from './pack-registry.js';
import { madeBySend } from './send-scope.js';

export interface LocatedEndpoint extends EndpointSummary {
  readonly pack: string;
  /** Its health as the pack's rule keeps it (docs/endpoint-health.md); healthy when never written. */
  readonly health: {
    readonly state: HealthState;
    readonly failures: number;
    readonly failingSince: string | null;
    readonly reason: string | null;
  };
  /** Of its last attempts (endpoint-success.ts), how many succeeded. */
  readonly recent: RecentSuccess;
  /** Made by `twinworld send` for its one event, and retired after it (send-scope.ts). */
  readonly send: boolean;
}

/** Every endpoint of the packs asked for (all when `packName` is absent), in twins the world holds. */
export async function locateEndpoints(world: World, packName?: string): Promise<LocatedEndpoint[]> {
  const twins = await world.twinNames();
  const out: LocatedEndpoint[] = [];
  for (const pack of registeredPacks(world).values()) {
    if (pack.cli === undefined || (packName !== undefined && pack.name !== packName)) continue;
    if (!twins.includes(packTwinName(pack))) continue;
    const twin = world.twin(packTwinName(pack));
    const endpoints = await pack.cli.listEndpoints(twin);
    const [health, success, send] = await twin.read(
      (view) =>
        [
          endpoints.map((e) => endpointHealthKind.read(view, endpointHealthKind.id(e.kind, e.id))),
          pack.events === undefined
            ? new Map<string, RecentSuccess>()
            : recentSuccess(view, pack.events.recordType),
          endpoints.map((e) => madeBySend(view, e.kind, e.id)),
        ] as const,
    );
    endpoints.forEach((e, i) => {
      const h = health[i];
      out.push({
        pack: pack.name,
        ...e,
        health: {
          state: h?.state ?? 'healthy',
          failures: h?.failures ?? 0,
          failingSince: h?.failingSince ?? null,
          reason: h?.reason ?? null,
        },
        recent: success.get(`${e.kind}:${e.id}`) ?? { attempts: 0, succeeded: 0, rate: null },
        send: send[i]!,
      });
    });
  }
  return out;
}

/** One endpoint by id: UNKNOWN_ENDPOINT when none has it, INVALID_ARGUMENT when two packs do. */
export async function findEndpoint(
  world: World,
  id: string,
  packName?: string,
): Promise<LocatedEndpoint> {
  const matches = (await locateEndpoints(world, packName)).filter((e) => e.id === id);
  if (matches.length === 0)
    throw new TwinError(
      'UNKNOWN_ENDPOINT',
      `no endpoint ${id}${packName === undefined ? '' : ` in pack ${packName}`}; list them with \`twinworld endpoints list\``,
      { path: 'endpoint' },
    );
  if (matches.length > 1)
    throw new TwinError(
      'INVALID_ARGUMENT',
      `endpoint id ${id} is held by packs ${matches.map((m) => m.pack).join(' and ')}; name one with --pack`,
      { path: 'endpoint' },
    );
  return matches[0]!;
}

/** Disables or enables one endpoint through its pack, the vendor's way; answers it as it is after. */
export async function setEndpointEnabled(
  world: World,
  endpoint: LocatedEndpoint,
  enabled: boolean,
): Promise<LocatedEndpoint> {
  const pack = registeredPacks(world).get(endpoint.pack);
  if (pack?.cli === undefined)
    throw new TwinError('UNKNOWN_PACK', `no pack "${endpoint.pack}" is registered`, {
      path: 'pack',
    });
  await pack.cli.setEndpointEnabled(world.twin(packTwinName(pack)), endpoint, enabled);
  return (await locateEndpoints(world, endpoint.pack)).find((e) => e.id === endpoint.id)!;
}
