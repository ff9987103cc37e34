// Customers: create, retrieve, update, delete, list (newest first, `email` filter) and search by
// email — each write one pack operation (customers.ts), so the API sends customer.* exactly as the
// pack does. A deleted customer retrieves as Stripe's `{id, object, deleted: true}`.
import type { JsonObject } from '../../../src/index.js';
import {
  createCustomer,
  deleteCustomer,
  updateCustomer,
  type CustomerInput,
} from '../customers.js';
import { StripeApiError } from './errors.js';
import { BY_EMAIL } from './indexes.js';
import { CREATED_LIST_PARAMS, listOf, orderedList } from './listing.js';
import { apiObject, stripeRoute } from './route.js';
import type { Params } from './codec.js';

const FIELDS: Params = {
  email: 'string',
  name: 'string',
  description: 'string',
  phone: 'string',
  metadata: 'metadata',
  invoice_settings: { default_payment_method: 'string', footer: 'string' },
};

/** Typed API input → the pack's input: fields left out stay out. */
function customerInput(input: JsonObject): CustomerInput {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(FIELDS)) if (input[key] !== undefined) out[key] = input[key];
  return out as CustomerInput;
}

/** Stripe's search syntax, the part the twin answers: `email:'ada@example.com'`. */
function searchedEmail(query: unknown): string {
  const m = typeof query === 'string' ? /^\s*email\s*:\s*(['"])(.*)\1\s*$/.exec(query) : null;
  if (m === null)
    throw new StripeApiError(
      400,
      'invalid_request_error',
      'parameter_invalid',
      `This twin searches customers by email only: query=email:'someone@example.com' (got ${JSON.stringify(query ?? null)})`,
      {},
      'query',
    );
  return m[2]!;
}

export const customerRoutes = [
  stripeRoute({
    method: 'POST',
    path: '/v1/customers',
    sdk: 'customers.create',
    kind: 'write',
    events: ['customer.created'],
    params: { ...FIELDS, test_clock: 'string' },
    async handle({ twin, input }) {
      // One world clock: a customer on a test clock is a customer on the world's clock.
      if (typeof input.test_clock === 'string') {
        const clock = await twin.get('test_clock', input.test_clock);
        if (clock === undefined || clock.deleted)
          throw new StripeApiError(
            404,
            'invalid_request_error',
            'resource_missing',
            `No such test_helpers.test_clock: '${input.test_clock}'`,
            {},
            'test_clock',
          );
      }
      return apiObject(await createCustomer(twin, customerInput(input)));
    },
  }),
  stripeRoute({
    method: 'GET',
    path: '/v1/customers/search',
    sdk: 'customers.search',
    kind: 'read',
    params: { query: 'string', limit: 'integer', page: 'string' },
    async handle({ twin, input, url }) {
      const email = searchedEmail(input.query);
      // `page` is the token the previous page answered as next_page: the id of its last result.
      const after = input.page as string | null | undefined;
      if (after != null && (await twin.get('customer', after)) === undefined)
        throw new StripeApiError(
          400,
          'invalid_request_error',
          'parameter_invalid',
          `Invalid page: '${after}' is not a next_page this search answered.`,
          {},
          'page',
        );
      const page = await listOf(
        twin,
        { type: 'customer', index: BY_EMAIL, key: email },
        { limit: input.limit ?? 10, ...(after == null ? {} : { starting_after: after }) },
        url,
      );
      const data = page.data as JsonObject[];
      const last = data.at(-1);
      return {
        object: 'search_result',
        data,
        has_more: page.has_more!,
        next_page: page.has_more === true && last !== undefined ? String(last.id) : null,
        url,
      };
    },
  }),
  stripeRoute({
    method: 'GET',
    path: '/v1/customers/:id',
    sdk: 'customers.retrieve',
    kind: 'read',
    async handle({ twin, params }) {
      const r = await twin.get('customer', params.id!);
      if (r === undefined)
        throw new StripeApiError(
          404,
          'invalid_request_error',
          'resource_missing',
          `No such customer: '${params.id}'`,
          {},
          'id',
        );
      if (r.deleted) return { id: r.id, object: 'customer', deleted: true };
      return apiObject(r.fields);
    },
  }),
  stripeRoute({
    method: 'POST',
    path: '/v1/customers/:id',
    sdk: 'customers.update',
    kind: 'write',
    events: ['customer.updated'],
    params: FIELDS,
    handle: async ({ twin, params, input }) =>
      apiObject(await updateCustomer(twin, params.id!, customerInput(input))),
  }),
  stripeRoute({
    method: 'DELETE',
    path: '/v1/customers/:id',
    sdk: 'customers.del',
    kind: 'write',
    events: ['customer.deleted'],
    handle: async ({ twin, params }) => await deleteCustomer(twin, params.id!),
  }),
  stripeRoute({
    method: 'GET',
    path: '/v1/customers',
    sdk: 'customers.list',
    kind: 'read',
    params: { ...CREATED_LIST_PARAMS, email: 'string' },
    async handle({ twin, input, url }) {
      return listOf(twin, orderedList('customer', input, [['email', BY_EMAIL]]), input, url);
    },
  }),
];
