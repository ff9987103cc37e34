// Webhook endpoints: create (answers its whsec_ secret, this once), retrieve, update, delete,
// list — the pack's operations, so endpoints made through the API take events exactly as those the
// CLI makes. The secret lives in world.secrets; the log keeps a reference.
import type { JsonObject } from '../../../src/index.js';
import {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  updateWebhookEndpoint,
  type CreateWebhookEndpointInput,
  type UpdateWebhookEndpointInput,
} from '../webhook-endpoints.js';
import { STRIPE_API_VERSION } from '../pack.js';
import { StripeApiError } from './errors.js';
import { LIST_PARAMS, listOf, orderedList } from './listing.js';
import { packInput } from './reads.js';
import { apiObject, stripeRoute } from './route.js';

/** Parameters whose `""` (null) is sent on: it unsets the description, or every metadata key. */
const UNSETTABLE = ['description', 'metadata'];

/** The named parameters that were sent, unset ones (null) dropped but those UNSETTABLE. */
function defined(input: JsonObject, keys: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of keys)
    if (input[k] !== undefined && (input[k] !== null || UNSETTABLE.includes(k))) out[k] = input[k];
  return out;
}

export const webhookEndpointRoutes = [
  stripeRoute({
    method: 'POST',
    path: '/v1/webhook_endpoints',
    sdk: 'webhookEndpoints.create',
    kind: 'write',
    params: {
      url: 'string',
      enabled_events: { list: 'string' },
      description: 'string',
      metadata: 'metadata',
      api_version: 'string',
      connect: 'boolean',
    },
    required: ['url', 'enabled_events'],
    async handle({ twin, input }) {
      if (input.connect === true)
        throw new StripeApiError(
          400,
          'invalid_request_error',
          'parameter_invalid',
          'This twin has no Connect accounts: connect must be false.',
          {},
          'connect',
        );
      if (input.api_version != null && input.api_version !== STRIPE_API_VERSION)
        throw new StripeApiError(
          400,
          'invalid_request_error',
          'parameter_invalid',
          `This twin renders events in API version ${STRIPE_API_VERSION} only.`,
          {},
          'api_version',
        );
      const created = await createWebhookEndpoint(
        twin,
        packInput<CreateWebhookEndpointInput>(input, [
          'url',
          'enabled_events',
          'description',
          'metadata',
          'api_version',
        ]),
      );
      return apiObject(created);
    },
  }),
  stripeRoute({
    method: 'GET',
    path: '/v1/webhook_endpoints/:id',
    sdk: 'webhookEndpoints.retrieve',
    kind: 'read',
    async handle({ twin, params }) {
      const r = await twin.get('webhook_endpoint', params.id!);
      if (r === undefined || r.deleted)
        throw new StripeApiError(
          404,
          'invalid_request_error',
          'resource_missing',
          `No such webhook endpoint: '${params.id}'`,
          {},
          'id',
        );
      return apiObject(r.fields);
    },
  }),
  stripeRoute({
    method: 'POST',
    path: '/v1/webhook_endpoints/:id',
    sdk: 'webhookEndpoints.update',
    kind: 'write',
    params: {
      url: 'string',
      enabled_events: { list: 'string' },
      description: 'string',
      metadata: 'metadata',
      disabled: 'boolean',
    },
    handle: async ({ twin, params, input }) =>
      apiObject(
        await updateWebhookEndpoint(
          twin,
          params.id!,
          defined(input, [
            'url',
            'enabled_events',
            'description',
            'metadata',
            'disabled',
          ]) as UpdateWebhookEndpointInput,
        ),
      ),
  }),
  stripeRoute({
    method: 'DELETE',
    path: '/v1/webhook_endpoints/:id',
    sdk: 'webhookEndpoints.del',
    kind: 'write',
    handle: async ({ twin, params }) => await deleteWebhookEndpoint(twin, params.id!),
  }),
  stripeRoute({
    method: 'GET',
    path: '/v1/webhook_endpoints',
    sdk: 'webhookEndpoints.list',
    kind: 'read',
    params: LIST_PARAMS,
    handle: ({ twin, input, url }) =>
      listOf(twin, orderedList('webhook_endpoint', input), input, url),
  }),
];
