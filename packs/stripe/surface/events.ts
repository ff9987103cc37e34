// Events: exactly what was delivered. Each event is the body its delivery records carry (one per
// endpoint that took it, all with the same body), so events.retrieve equals what the webhook
// handler received, byte for byte once parsed; `pending_webhooks` in the body is what Stripe said
// at send time. An event no endpoint took was never delivered and is not listed.
import type { JsonObject, Resource } from '../../../src/index.js';
import { StripeApiError } from './errors.js';
import { BY_EVENT, EVENTS } from './indexes.js';
import { CREATED_LIST_PARAMS, listOf } from './listing.js';
import { stripeRoute } from './route.js';

function eventOf(record: Resource): JsonObject {
  return JSON.parse(String(record.fields.body)) as JsonObject;
}

export const eventRoutes = [
  stripeRoute({
    method: 'GET',
    path: '/v1/events/:id',
    sdk: 'events.retrieve',
    kind: 'read',
    async handle({ twin, params }) {
      const [record] = await twin.lookup('webhook_delivery', BY_EVENT, params.id!);
      if (record === undefined)
        throw new StripeApiError(
          404,
          'invalid_request_error',
          'resource_missing',
          `No such event: '${params.id}'`,
          {},
          'id',
        );
      return eventOf(record);
    },
  }),
  stripeRoute({
    method: 'GET',
    path: '/v1/events',
    sdk: 'events.list',
    kind: 'read',
    params: { ...CREATED_LIST_PARAMS, type: 'string', types: { list: 'string' } },
    handle({ twin, input, url }) {
      const types = input.types as string[] | undefined;
      const wanted = (t: unknown) =>
        (input.type == null || matches(String(input.type), String(t))) &&
        (types === undefined || types.includes(String(t)));
      return listOf(
        twin,
        {
          type: 'webhook_delivery',
          index: EVENTS,
          key: 'webhook_endpoint',
          // An event has a record per endpoint that took it: each event is shown once.
          keep(cursor) {
            const seen = new Set(cursor === undefined ? [] : [cursor]);
            return (r) => {
              const id = String(r.fields.eventId);
              if (seen.has(id)) return false;
              seen.add(id);
              return wanted(r.fields.eventType);
            };
          },
          cursor: (view, id) => view.lookup('webhook_delivery', BY_EVENT, id)[0]?.id,
          show: eventOf,
          // The record is made with its event: its createdAt (the index's order) is the event's
          // `created`, in milliseconds.
          created: (r) => Math.floor(Date.parse(String(r.fields.createdAt)) / 1000),
        },
        input,
        url,
      );
    },
  }),
];

/** Stripe's `type` filter takes one `*` wildcard: `customer.*`. */
function matches(pattern: string, type: string): boolean {
  if (!pattern.includes('*')) return pattern === type;
  const [head, tail] = pattern.split('*', 2) as [string, string];
  return type.startsWith(head) && type.endsWith(tail) && type.length >= head.length + tail.length;
}
