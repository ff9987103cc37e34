// What a pack offers `twinworld endpoints` and `twinworld trigger` (the kernel's Pack['cli']),
// and the pieces every pack's implementation shares: a trigger whose `--data` keys are checked
// before anything is written, and the event filter a CLI request means.
import type { JsonObject, Pack, Twin } from '../../src/index.js';

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
