// `twinworld send` as a library call: like a vendor's own CLI trigger, it builds what an event
// needs in the world, subscribes an endpoint for the target URL (its secret in world.secrets),
// performs the causing write and waits for the dispatcher's first attempt. Everything — the
// resources, the delivery record, the attempt — stays in the world's log. The scenario runs as
// one send (runSending): the endpoint it subscribes is claimed for that send alone in the commit
// that creates it, so a send killed at any moment leaves no endpoint later events go to.
import {
  Dispatcher,
  registerPack,
  runSending,
  TwinError,
  type AttemptOutcome,
  type JsonObject,
  type Twin,
  type World,
} from '../src/index.js';
import { dataKeyRefusal } from './kit/cli.js';
import { checker } from './kit/input.js';
import type { ScenarioResult, VendorPack } from './kit/vendor-pack.js';
import { builtInPacks as BUILT_IN } from './built-in.js';

export interface SendOptions {
  /** A built-in pack's name, or a VendorPack of your own. */
  readonly pack: string | VendorPack;
  readonly eventType: string;
  /** The receiver's URL, e.g. http://127.0.0.1:3000/webhooks. */
  readonly to: string;
  /** The signing secret the receiver verifies with (stored in world.secrets, never in the log). */
  readonly secret: string;
  /** Overrides merged into the causing write's input (`--data JSON`). */
  readonly data?: JsonObject;
  /** Use this dispatcher instead of the world's send dispatcher (e.g. one with in-process routes). */
  readonly dispatcher?: Dispatcher;
}

export interface SendResult {
  readonly pack: string;
  readonly eventType: string;
  readonly eventId: string;
  readonly deliveryId: string;
  readonly endpointId: string;
  /** The receiver's HTTP status, or null when the request got no answer. */
  readonly status: number | null;
  readonly outcome: AttemptOutcome;
  /** Why: "http_status", "timeout", "connection_error", "missing_secret", … */
  readonly reason: string;
  /** Wall-clock duration of the request; reported here, never logged. */
  readonly durationMs: number;
  /** Attempts made so far (1 unless another dispatcher already retried). */
  readonly attempts: number;
  /**
   * The delivery's state once the send is over. A send's endpoint is one-shot — retired after the
   * one attempt — so it takes no retries: an attempt the pack's policy would retry ends
   * `cancelled` (`endpoint_removed` or `endpoint_disabled`), never `retrying`.
   */
  readonly state: string;
}

export interface Sendable {
  readonly pack: string;
  readonly eventType: string;
  readonly description: string;
}

/** Every (pack, event type) `sendEvent` can send, sorted. */
export function listSendable(packs: readonly VendorPack[] = BUILT_IN): Sendable[] {
  // One pack (listSendable(stripe.pack)) was a "packs.flatMap is not a function" TypeError, and a
  // pack's module ([stripe]) was listed under pack undefined.
  const isPack = (p: Partial<VendorPack> | null): boolean =>
    typeof p?.name === 'string' && typeof p.scenarios === 'object';
  if (!Array.isArray(packs) || !packs.every(isPack))
    throw new TwinError(
      'INVALID_ARGUMENT',
      'listSendable(packs): packs must be an array of VendorPacks (each with scenarios), e.g. [stripe.pack]',
      { path: 'packs' },
    );
  return packs
    .flatMap((p) =>
      Object.keys(p.scenarios).map((eventType) => ({
        pack: p.name,
        eventType,
        description: p.description,
      })),
    )
    .sort((a, b) =>
      a.pack === b.pack ? (a.eventType < b.eventType ? -1 : 1) : a.pack < b.pack ? -1 : 1,
    );
}

/** The built-in pack `send` takes by this name; UNKNOWN_PACK listing the valid ones otherwise. */
export function checkPack(name: string): void {
  resolvePack(name);
}

function resolvePack(pack: string | VendorPack): VendorPack {
  if (typeof pack !== 'string') return pack;
  const found = BUILT_IN.find((p) => p.name === pack);
  if (found === undefined) {
    const valid = BUILT_IN.map((p) => p.name).sort();
    throw new TwinError(
      'UNKNOWN_PACK',
      `unknown pack "${pack}"; valid packs: ${valid.join(', ')}`,
      { path: 'pack', details: { valid } },
    );
  }
  return found;
}

// One dispatcher per world for sends, made without auto-dispatch: sendEvent dispatches its own
// record and awaits it, and closing the world closes the dispatcher.
const sendDispatchers = new WeakMap<World, Dispatcher>();

function dispatcherFor(world: World): Dispatcher {
  let dispatcher = sendDispatchers.get(world);
  if (dispatcher === undefined) {
    dispatcher = new Dispatcher(world, { autoDispatch: false });
    sendDispatchers.set(world, dispatcher);
  }
  return dispatcher;
}

/** Endpoints written after `head`, as subjects or as projected creates (Slack's app install). */
async function endpointsCreatedSince(
  twin: Twin,
  head: number,
  pack: VendorPack,
): Promise<{ type: string; id: string }[]> {
  const kinds = new Set(pack.events.endpoints.map((k) => k.type));
  const out: { type: string; id: string }[] = [];
  for (const entry of await twin.entries({ after: head })) {
    if (kinds.has(entry.subjectType) && entry.operation.endsWith('.create'))
      out.push({ type: entry.subjectType, id: entry.subjectId });
    for (const p of entry.projection?.creates ?? [])
      if (kinds.has(p.type)) out.push({ type: p.type, id: p.id });
  }
  return out;
}

async function settled(
  twin: Twin,
  recordType: string,
  id: string,
  withinMs: number,
): Promise<void> {
  for (let waited = 0; waited < withinMs; waited += 10) {
    const state = (await twin.get(recordType, id))?.fields.state;
    if (state !== 'queued' && state !== 'sending') return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const SEND_KEYS = ['pack', 'eventType', 'to', 'secret', 'data', 'dispatcher'];

function refuse(path: string, message: string): never {
  throw new TwinError('INVALID_ARGUMENT', `sendEvent(world, options): ${message}`, { path });
}

/**
 * The options' shape, before what each holds: no options, a pack without scenarios (a pack's
 * module, or a kernel Pack) and a dispatcher that is none were TypeErrors from deep inside, an
 * event type that is no text was "cannot send "undefined"", and a misspelt `dispatcher` was
 * dropped, so the send went through the world's own dispatcher instead.
 */
function checkSendShape(options: unknown): asserts options is SendOptions {
  if (typeof options !== 'object' || options === null || Array.isArray(options))
    refuse('options', `options must be an object {${SEND_KEYS.join(', ')}}`);
  const given = options as Record<string, unknown>;
  for (const key of Object.keys(given))
    if (!SEND_KEYS.includes(key))
      refuse(key, `unknown option "${key}"; sendEvent takes ${SEND_KEYS.join(', ')}`);
  const { pack, eventType, dispatcher } = given;
  if (typeof pack === 'object' && pack !== null) {
    const inner = (pack as { pack?: { name?: unknown } }).pack;
    if (typeof inner?.name === 'string' && !('name' in pack))
      refuse('pack', `this is the module of the pack "${inner.name}"; pass its name or its .pack`);
    if (typeof (pack as { scenarios?: unknown }).scenarios !== 'object')
      refuse('pack', "pack must be a built-in pack's name or a VendorPack (one with scenarios)");
  } else if (typeof pack !== 'string')
    refuse('pack', `pack must be a built-in pack's name (e.g. "stripe") or a VendorPack`);
  if (typeof eventType !== 'string')
    refuse('eventType', 'eventType must be a string such as "customer.created"');
  if (
    dispatcher !== undefined &&
    typeof (dispatcher as { dispatch?: unknown } | null)?.dispatch !== 'function'
  )
    refuse('dispatcher', 'dispatcher must be a Dispatcher when given');
}

/**
 * What `sendEvent` checks before it touches a world: the pack, the event type, the URL, the
 * secret and the `--data` keys. A command calls it before opening (or creating) its world, so a
 * refused send leaves nothing behind.
 */
export function checkSend(options: SendOptions) {
  checkSendShape(options);
  const pack = resolvePack(options.pack);
  const scenario = Object.hasOwn(pack.scenarios, options.eventType)
    ? pack.scenarios[options.eventType]
    : undefined;
  if (scenario === undefined) {
    const valid = Object.keys(pack.scenarios).sort();
    throw new TwinError(
      'UNKNOWN_EVENT_TYPE',
      `pack "${pack.name}" cannot send "${options.eventType}"; valid event types: ${valid.join(', ')}`,
      { path: 'eventType', details: { pack: pack.name, valid } },
    );
  }
  const check = checker('send');
  const to = check.url(options.to, 'to');
  const secret = check.secret(options.secret, 'secret');
  const data = options.data === undefined ? undefined : check.object(options.data, 'data');
  // Keys the scenario does not take are refused now, not by its causing write after the
  // resources and the endpoint before it are already in the log.
  const keys = pack.scenarioKeys?.[options.eventType];
  const refusal =
    data === undefined || keys === undefined
      ? undefined
      : dataKeyRefusal(pack.name, options.eventType, keys, data);
  if (refusal !== undefined) throw refusal;
  return { pack, scenario, to, secret, data };
}

export async function sendEvent(world: World, options: SendOptions): Promise<SendResult> {
  if (typeof (world as Partial<World> | null | undefined)?.run !== 'function')
    refuse('world', "world must be a world from openWorld(...) (or a walk's world)");
  const { pack, scenario, to, secret, data } = checkSend(options);

  return world.run(async () => {
    const twin = registerPack(world, pack);
    const dispatcher = options.dispatcher ?? dispatcherFor(world);
    const head = await twin.head();
    let made: ScenarioResult;
    try {
      made = await runSending(() => scenario({ twin, target: { url: to, secret }, data }));
    } catch (error) {
      // A scenario refused halfway (say, bad --data) may already have subscribed the target.
      for (const endpoint of await endpointsCreatedSince(twin, head, pack))
        await pack.retireEndpoint(twin, endpoint.type, endpoint.id);
      throw error;
    }
    const { endpointKind, endpointId } = made;
    const recordCreate = `${pack.events.recordType}.create`;
    const record = (await twin.entries({ after: head })).find(
      (e) =>
        e.operation === recordCreate &&
        e.fields?.endpointId === endpointId &&
        e.fields?.eventType === options.eventType,
    );
    if (record === undefined) {
      await pack.retireEndpoint(twin, endpointKind, endpointId);
      throw new TwinError(
        'INVALID_CONFIG',
        `pack "${pack.name}": the ${options.eventType} scenario produced no delivery to its endpoint; its scenario and event rules disagree`,
        { path: 'scenarios' },
      );
    }
    const deliveryId = record.subjectId;
    let attempt: Awaited<ReturnType<Dispatcher['dispatch']>>;
    try {
      attempt = await dispatcher.dispatch(pack.name, deliveryId, 'first');
      // undefined: another dispatcher of this world claimed the record first; wait for its attempt.
      if (attempt === undefined)
        await settled(
          twin,
          pack.events.recordType,
          deliveryId,
          (pack.events.timeoutMs ?? 10_000) + 5_000,
        );
    } finally {
      // Later sends to this world must not reach the endpoint this one made. Retired after the
      // first attempt: a first attempt to an endpoint disabled meanwhile is cancelled, never sent.
      await pack.retireEndpoint(twin, endpointKind, endpointId);
    }
    const delivery = (await twin.get(pack.events.recordType, deliveryId))!.fields;
    const last = (
      await twin.get(
        `${pack.events.recordType}_attempt`,
        `${deliveryId}.${String(delivery.attempts)}`,
      )
    )?.fields;
    return {
      pack: pack.name,
      eventType: options.eventType,
      eventId: String(delivery.eventId),
      deliveryId,
      endpointId,
      status: attempt?.status ?? (last?.status as number | null | undefined) ?? null,
      outcome: attempt?.outcome ?? (last?.state as AttemptOutcome | undefined) ?? 'unknown',
      reason: attempt?.reason ?? String(last?.reason ?? 'unknown'),
      durationMs: attempt?.durationMs ?? 0,
      attempts: Number(delivery.attempts),
      state: String(delivery.state),
    };
  });
}
