// A pack: one vendor's twin, declared as data — its indexes, its events, and the operations a
// user can ask of it. registerPack wires it into a world: indexes declared, fan-out installed.
import { nearestName } from '../did-you-mean.js';
import { checkWorld, describeValue, TwinError } from '../errors.js';
import type { IndexDeclaration } from '../state/indexes.js';
import type { EventsDeclaration } from './declaration.js';
import { validateEventsDeclaration } from './declaration.js';
import { installEndpointCancel } from './endpoint-cancel.js';
import { installHealthReset } from './health/reset-on-enable.js';
import { installFanOut, EVENTS_INDEX } from './fan-out.js';
import { DUE_FIELD, DUE_INDEX } from '../work/lease.js';
import type { JsonObject } from '../log/json-value.js';
import type { Twin, TwinHost } from '../world/twin.js';

/**
 * A pack's declaration. registerPack reads these keys; others are the pack's own and pass (a
 * VendorPack adds scenarios, idShapes, …), except a key a slip away from one of these ("evnets"),
 * refused as INVALID_CONFIG with the key it was likely meant to be.
 */
export interface Pack {
  /** The vendor, e.g. "stripe"; also the default twin name. */
  readonly name: string;
  readonly twin?: string;
  readonly description?: string;
  readonly indexes?: readonly IndexDeclaration[];
  readonly events?: EventsDeclaration;
  /** Optional: how `twinworld endpoints` and `twinworld trigger` drive this pack. */
  readonly cli?: PackCli;
}

/** What `twinworld endpoints add <pack>` asks for: a webhook endpoint, registered the vendor's way. */
interface EndpointRequest {
  readonly url: string;
  /** The signing secret; absent = the pack generates one the way the vendor does. */
  readonly secret?: string;
  /** Event types the endpoint takes; absent = every type ("*" says so explicitly). */
  readonly events?: readonly string[];
  /** Values of the pack's own options (`endpointOptions`), e.g. GitHub's repo; absent when not given. */
  readonly options: Readonly<Record<string, string>>;
}

/** An endpoint as the CLI lists it; `kind` is its resource type in the pack's twin. */
export interface EndpointSummary {
  readonly kind: string;
  readonly id: string;
  readonly url: string;
  /** The filter in the vendor's words (Stripe's enabled_events, GitHub's events, …); ["*"] = all. */
  readonly events: readonly string[];
  readonly enabled: boolean;
  /** What the endpoint belongs to, when the vendor scopes it (a repository, a workspace). */
  readonly scope?: string;
}

/**
 * The vendor writes that produce one event type, with whatever they need first (as `stripe
 * trigger` creates a customer for customer.created). The CLI checks `--data`'s keys against
 * `data` before `run` is called; the values are the vendor operations' to check.
 */
export interface EventTrigger {
  /**
   * The keys `--data` may hold, merged into the object the trigger creates; empty = it takes no
   * data; "any" = the object is free-form (a Standard Webhooks message's payload).
   */
  readonly data: readonly string[] | 'any';
  run(twin: Twin, data: JsonObject | undefined): Promise<void>;
}

export interface PackCli {
  /** Extra `endpoints add` options this pack reads, by name (no leading dashes), with their help. */
  readonly endpointOptions?: Readonly<Record<string, string>>;
  /**
   * Checks what it can of an add request without a world (the event names, which options go
   * together), throwing what addEndpoint would: the CLI calls it before it opens or creates the
   * root, so a refused add leaves nothing behind.
   */
  checkEndpoint?(request: EndpointRequest): void;
  /** Registers the endpoint; answers it with its signing secret (stored in world.secrets). */
  addEndpoint(
    twin: Twin,
    request: EndpointRequest,
  ): Promise<EndpointSummary & { readonly secret: string }>;
  listEndpoints(twin: Twin): Promise<EndpointSummary[]>;
  setEndpointEnabled(twin: Twin, endpoint: EndpointSummary, enabled: boolean): Promise<void>;
  removeEndpoint(twin: Twin, endpoint: EndpointSummary): Promise<void>;
  /** Event type → its trigger; the types `twinworld trigger <pack>` accepts. */
  readonly triggers: Readonly<Record<string, EventTrigger>>;
}

const registries = new WeakMap<TwinHost, Map<string, Pack>>();

// A pack's module (`import { stripe } from 'twinworld/packs'`) or its name are the likely slips: both
// failed as "a pack needs a non-empty name", and a world that is not one as a WeakMap TypeError.
function checkRegisterArguments(world: unknown, pack: unknown): asserts pack is Pack {
  checkWorld('registerPack(world, pack)', world);
  if (typeof pack === 'string')
    throw new TwinError(
      'INVALID_ARGUMENT',
      `registerPack(world, pack): pack must be a Pack object, not its name ${JSON.stringify(pack)}; import the pack (e.g. import { stripe } from 'twinworld/packs') and pass stripe.pack`,
      { path: 'pack' },
    );
  if (pack === null || typeof pack !== 'object')
    throw new TwinError(
      'INVALID_ARGUMENT',
      `registerPack(world, pack): pack must be a Pack object {name, events?, indexes?}, got ${describeValue(pack)}`,
      { path: 'pack' },
    );
  const fields = pack as Partial<Record<keyof Pack | 'pack', unknown>>;
  const inner = fields.pack as Partial<Pack> | null | undefined;
  if (fields.name === undefined && typeof inner?.name === 'string')
    throw new TwinError(
      'INVALID_ARGUMENT',
      `registerPack(world, pack): this is the module of the pack "${inner.name}", not the pack; pass its .pack (e.g. stripe.pack)`,
      { path: 'pack' },
    );
  if (typeof fields.name !== 'string' || fields.name === '')
    throw new TwinError('INVALID_CONFIG', 'a pack needs a non-empty name', { path: 'pack.name' });
  checkPackKeys(fields.name, pack);
  if (fields.indexes !== undefined && !Array.isArray(fields.indexes))
    throw new TwinError(
      'INVALID_CONFIG',
      `packs.${fields.name}.indexes must be an array of {type, name, field}, got ${describeValue(fields.indexes)}`,
      { path: `packs.${fields.name}.indexes` },
    );
}

const PACK_KEYS = ['name', 'twin', 'description', 'indexes', 'events', 'cli'];
// Two edits from a short key take in too many others ("api" is two from "cli"): one for those.
const LONG_KEYS = PACK_KEYS.filter((k) => k.length > 4);
const SHORT_KEYS = PACK_KEYS.filter((k) => k.length <= 4);

/**
 * Keys beyond a Pack's are the pack's own and pass (a VendorPack adds scenarios, idShapes and
 * retireEndpoint; a third party's may add others). A key a slip away from a Pack key ("evnets",
 * "Indexes", "twinn") would leave the pack silently without what it meant to declare: refused.
 */
function checkPackKeys(name: string, pack: object): void {
  for (const key of Object.keys(pack)) {
    if (PACK_KEYS.includes(key)) continue;
    const near = nearestName(key, LONG_KEYS, 2) ?? nearestName(key, SHORT_KEYS, 1);
    if (near !== undefined)
      throw new TwinError(
        'INVALID_CONFIG',
        `packs.${name}: unknown key "${key}" (did you mean "${near}"?); a pack declares ${PACK_KEYS.join(', ')}, and may carry keys of its own that are not a slip of one of these`,
        { path: `packs.${name}.${key}` },
      );
  }
}

/** The packs registered in a world, by name, in registration order. */
export function registeredPacks(world: TwinHost): ReadonlyMap<string, Pack> {
  // A WeakMap answers nothing for what is no world: "no packs" would hide the wrong argument.
  checkWorld('registeredPacks(world)', world);
  return registries.get(world) ?? new Map();
}

export function packTwinName(pack: Pack): string {
  if (typeof (pack as Partial<Pack> | null)?.name !== 'string')
    throw new TwinError(
      'INVALID_ARGUMENT',
      `packTwinName(pack): pack must be a Pack object {name, twin?} (e.g. stripe.pack), got ${describeValue(pack)}`,
      { path: 'pack' },
    );
  return pack.twin ?? pack.name;
}

export function registerPack(world: TwinHost, pack: Pack): Twin {
  checkRegisterArguments(world, pack);
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
    twin.declareIndex({ type: pack.events.recordType, name: DUE_INDEX, field: DUE_FIELD });
    installFanOut(twin, pack.name, pack.events);
    installEndpointCancel(twin, pack.name, pack.events);
    installHealthReset(twin, pack.name, pack.events);
  }
  packs.set(pack.name, pack);
  return twin;
}

export function getPack(world: TwinHost, name: string): Pack {
  checkWorld('getPack(world, name)', world);
  if (typeof name !== 'string')
    throw new TwinError(
      'INVALID_ARGUMENT',
      `getPack(world, name): name must be the pack's name (e.g. "stripe"), got ${describeValue(name)}`,
      { path: 'name' },
    );
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
