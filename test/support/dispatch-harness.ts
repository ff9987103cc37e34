// A world on a virtual clock with the acme pack, one enabled endpoint routed to an in-process
// receiver, and a dispatcher: the common ground of the send-once guard tests.
import { Dispatcher } from '../../src/events/dispatcher.js';
import type { RetryPolicy } from '../../src/events/retry.js';
import type { SchemeName } from '../../src/events/signing/index.js';
import {
  InProcessTransport,
  type InProcessRequest,
} from '../../src/events/transports/in-process-transport.js';
import type { TransportResponse } from '../../src/events/transports/transport.js';
import { VirtualClock } from '../../src/world/clock.js';
import { registerPack } from '../../src/events/pack-registry.js';
import { openWorld, type World } from '../../src/world/world.js';
import { ACME_SECRET, acmePack } from './acme-pack.js';

export type Handler = (
  req: InProcessRequest,
) => TransportResponse | number | Promise<TransportResponse | number>;

export const DISPATCH_T0 = '2026-04-01T00:00:00.000Z';

export async function dispatchHarness(
  handler: Handler,
  options: {
    retry?: RetryPolicy;
    world?: World;
    clock?: VirtualClock;
    autoDispatch?: boolean;
    signing?: SchemeName;
    /** A rate the endpoint's deliveries are paced to (health/pace.ts). */
    ratePerSecond?: number;
  } = {},
) {
  const clock = options.clock ?? new VirtualClock(DISPATCH_T0);
  const world = options.world ?? openWorld({ root: ':memory:', clock, seed: 'guards' });
  const pack = acmePack(options.retry);
  const twin = registerPack(world, {
    ...pack,
    events: {
      ...pack.events!,
      ...(options.signing === undefined ? {} : { signing: options.signing }),
      ...(options.ratePerSecond === undefined
        ? {}
        : { health: { source: 'test', ratePerSecond: options.ratePerSecond } }),
    },
  });
  const received: InProcessRequest[] = [];
  const transport = new InProcessTransport(clock, (req) => {
    received.push(req);
    return handler(req);
  });
  const newDispatcher = () =>
    new Dispatcher(world, {
      routes: [{ prefix: 'inproc://', transport }],
      ...(options.autoDispatch === undefined ? {} : { autoDispatch: options.autoDispatch }),
    });
  const dispatcher = newDispatcher();
  if ((await world.secrets.resolve('ep', clock.now())).length === 0)
    await world.secrets.set('ep', ACME_SECRET);
  if ((await twin.get('endpoint', 'ep')) === undefined) {
    await twin.applyWrite({
      operation: 'endpoint.create',
      subjectType: 'endpoint',
      subjectId: 'ep',
      fields: { url: 'inproc://ep/hook', secret_ref: 'ep', events: ['*'], status: 'enabled' },
    });
  }
  const create = (id = 'cus_1') =>
    twin.applyWrite({
      operation: 'customer.create',
      subjectType: 'customer',
      subjectId: id,
      fields: { email: `${id}@example.com` },
    });
  const delivery = async (id?: string) =>
    id === undefined ? (await twin.list('delivery'))[0]! : (await twin.get('delivery', id))!;
  const attempts = async () => (await twin.list('delivery_attempt')).map((a) => a.fields);
  return {
    clock,
    world,
    twin,
    transport,
    dispatcher,
    newDispatcher,
    received,
    create,
    delivery,
    attempts,
  };
}

/** Lets event-loop turns pass until `done()` holds (the dispatcher defers its first attempt past the writer's answer). */
export async function until(done: () => boolean, maxTurns = 100): Promise<void> {
  for (let i = 0; i < maxTurns && !done(); i++)
    await new Promise((resolve) => setImmediate(resolve));
  if (!done()) throw new Error(`condition not reached within ${maxTurns} event-loop turns`);
}
