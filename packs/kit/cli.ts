// What a pack offers `twinworld endpoints` and `twinworld trigger` (the kernel's Pack['cli']),
// and the pieces every pack's implementation shares: a trigger whose `--data` keys are checked
// before anything is written, and the event filter a CLI request means.
import { TwinError, type JsonObject, type Pack, type Twin } from '../../src/index.js';

export type PackCli = NonNullable<Pack['cli']>;
export type EndpointRequest = Parameters<PackCli['addEndpoint']>[1];
export type EndpointSummary = Awaited<ReturnType<PackCli['listEndpoints']>>[number];
type AddedEndpoint = Awaited<ReturnType<PackCli['addEndpoint']>>;
export type EventTrigger = PackCli['triggers'][string];

/**
 * A trigger that takes the `--data` keys listed (merged into the object it creates); the CLI
 * refuses any other key before the trigger runs, so a refused trigger writes nothing.
 */
export function trigger(
  data: EventTrigger['data'],
  run: (twin: Twin, data: JsonObject | undefined) => Promise<unknown>,
): EventTrigger {
  return {
    data,
    run: async (twin, input) => {
      await run(twin, input);
    },
  };
}

/** The request's filter: undefined (every type) when absent or empty, else the types given. */
export function requestedEvents(request: EndpointRequest): readonly string[] | undefined {
  return request.events === undefined || request.events.length === 0 ? undefined : request.events;
}

/** The option's value when given, else undefined. */
export function option(request: EndpointRequest, name: string): string | undefined {
  return Object.hasOwn(request.options, name) ? request.options[name] : undefined;
}

/**
 * The first `--data` key `allowed` does not list, as the refusal `trigger` and `send` both give
 * before writing anything; undefined when every key is taken.
 */
export function dataKeyRefusal(
  pack: string,
  eventType: string,
  allowed: readonly string[] | 'any',
  data: JsonObject,
): TwinError | undefined {
  if (allowed === 'any') return undefined;
  const key = Object.keys(data).find((k) => !allowed.includes(k));
  if (key === undefined) return undefined;
  return new TwinError(
    'INVALID_ARGUMENT',
    `--data key "${key}" is not taken by ${pack} ${eventType}; ${allowed.length === 0 ? 'it takes no --data' : `it takes: ${allowed.join(', ')}`}`,
    { path: `data.${key}`, details: { allowed: [...allowed] } },
  );
}
