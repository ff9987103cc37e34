// Events: exactly what was delivered. Each event is the body its delivery records carry (one per
// endpoint that took it, all with the same body), so events.retrieve equals what the webhook
// handler received, byte for byte once parsed; `pending_webhooks` in the body is what Stripe said
// at send time. An event no endpoint took was never delivered and is not listed.
import type { JsonObject, Resource } from '../../../src/index.js';
import { StripeApiError } from './errors.js';
import { BY_EVENT } from './indexes.js';
import { LIST_PARAMS, listPage, newestFirst } from './listing.js';
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
    params: { ...LIST_PARAMS, type: 'string', types: { list: 'string' } },
    async handle({ twin, input, url }) {
      const records = await twin.list('webhook_delivery');
      const unique = new Map<string, Resource>();
      for (const r of records)
        if (!unique.has(String(r.fields.eventId))) unique.set(String(r.fields.eventId), r);
      const types = input.types as string[] | undefined;
      const wanted = (t: unknown) =>
        (input.type == null || matches(String(input.type), String(t))) &&
        (types === undefined || types.includes(String(t)));
      const ordered = await newestFirst(
        twin,
        [...unique.values()].filter((r) => wanted(r.fields.eventType)),
        (r) => Date.parse(String(r.fields.createdAt)),
      );
      const events = ordered.map(eventOf);
      return listPage(events, input, url);
    },
  }),
];

/** Stripe's `type` filter takes one `*` wildcard: `customer.*`. */
function matches(pattern: string, type: string): boolean {
  if (!pattern.includes('*')) return pattern === type;
  const [head, tail] = pattern.split('*', 2) as [string, string];
  return type.startsWith(head) && type.endsWith(tail) && type.length >= head.length + tail.length;
}
