// new Dispatcher(world, options), checked before it attaches to anything: a missing world was a
// TypeError on world.ids, routes that are no array one on iterating them, and a misspelt key or a
// wrong value (autoDispatch: 'onFlush', owner: '', a route without prefix) was taken silently and
// changed how deliveries went out, or never sent them where meant.
import { describeValue, TwinError } from '../errors.js';
import type { TwinHost } from '../world/twin.js';
import { registeredPacks, type Pack } from './pack-registry.js';

const KEYS = [
  'routes',
  'defaultTransport',
  'concurrency',
  'autoDispatch',
  'owner',
  'leaseMs',
] as const;

function refuse(path: string, message: string): never {
  throw new TwinError('INVALID_ARGUMENT', `new Dispatcher(world, options): ${message}`, { path });
}

function isTransport(value: unknown): boolean {
  const t = value as { send?: unknown; now?: unknown } | null;
  return (
    typeof t === 'object' &&
    t !== null &&
    typeof t.send === 'function' &&
    typeof t.now === 'function'
  );
}

export function checkDispatcherArguments(world: unknown, options: unknown): void {
  const w = world as { twin?: unknown; ids?: unknown } | null | undefined;
  if (typeof w?.twin !== 'function' || typeof w.ids !== 'object')
    refuse('world', `world must be a world from openWorld(...), got ${describeValue(world)}`);
  if (typeof options !== 'object' || options === null || Array.isArray(options))
    refuse(
      'options',
      `options must be an object such as {autoDispatch: 'on-flush'}, got ${describeValue(options)}`,
    );
  const given = options as Record<string, unknown>;
  for (const key of Object.keys(given))
    if (!(KEYS as readonly string[]).includes(key))
      refuse(key, `unknown option "${key}"; a dispatcher takes ${KEYS.join(', ')}`);
  const { autoDispatch, owner, routes, defaultTransport } = given;
  if (
    autoDispatch !== undefined &&
    autoDispatch !== true &&
    autoDispatch !== false &&
    autoDispatch !== 'on-flush'
  )
    refuse(
      'autoDispatch',
      `autoDispatch must be true, false or 'on-flush', got ${describeValue(autoDispatch)}`,
    );
  if (owner !== undefined && (typeof owner !== 'string' || owner === ''))
    refuse(
      'owner',
      `owner must be a non-empty string (or omit it for a fresh id), got ${describeValue(owner)}`,
    );
  if (defaultTransport !== undefined && !isTransport(defaultTransport))
    refuse(
      'defaultTransport',
      `defaultTransport must be a Transport {name, now(), send(request)}, got ${describeValue(defaultTransport)}`,
    );
  if (routes === undefined) return;
  if (!Array.isArray(routes))
    refuse(
      'routes',
      `routes must be an array of {prefix, transport}, got ${describeValue(routes)}`,
    );
  routes.forEach((route: unknown, i) => {
    const r = route as { prefix?: unknown; transport?: unknown } | null;
    if (typeof r?.prefix !== 'string' || r.prefix === '')
      refuse(
        `routes[${i}].prefix`,
        `routes[${i}].prefix must be the start of the URLs it takes, such as "http://127.0.0.1:4242/", got ${describeValue(r?.prefix)}`,
      );
    if (!isTransport(r.transport))
      refuse(
        `routes[${i}].transport`,
        `routes[${i}].transport must be a Transport {name, now(), send(request)}, got ${describeValue(r.transport)}`,
      );
  });
}

/**
 * The pack a dispatcher call names must be the one registered in its world under that name: a
 * pack's name or module was a TypeError (attach(undefined), takeOver('stripe', id)) or, for
 * attach('stripe'), nothing at all — no hook, and the pack's deliveries never went out.
 */
export function checkRegisteredPack(
  world: TwinHost,
  pack: unknown,
  call: string,
): asserts pack is Pack {
  const name = (pack as { name?: unknown } | null)?.name;
  if (
    typeof pack === 'object' &&
    pack !== null &&
    typeof name === 'string' &&
    registeredPacks(world).get(name) === pack
  )
    return;
  const hint =
    typeof pack === 'string'
      ? `pass the pack object, not its name (e.g. stripe.pack, or getPack(world, ${JSON.stringify(pack)}))`
      : 'register it first with registerPack(world, pack), then pass that same object';
  throw new TwinError(
    'INVALID_ARGUMENT',
    `${call}: pack must be a pack registered in this world, got ${describeValue(pack)}${typeof name === 'string' ? ` named "${name}"` : ''}; ${hint}`,
    { path: 'pack' },
  );
}
