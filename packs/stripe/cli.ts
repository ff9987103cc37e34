// `twinworld endpoints … stripe` and `twinworld trigger stripe …`: webhook endpoints as the
// Dashboard and POST /v1/webhook_endpoints make them (a whsec_ secret, enabled_events, status),
// and a trigger per event type built from the same recipes `twinworld send` runs.
import type { Twin } from '../../src/index.js';
import {
  requestedEvents,
  trigger,
  type EndpointRequest,
  type EndpointSummary,
  type PackCli,
} from '../kit/cli.js';
import { recipes } from './recipes.js';
import { enabledEvents, webhookEndpointKind } from './webhook-endpoints.js';
import {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  updateWebhookEndpoint,
  type StripeWebhookEndpoint,
} from './webhook-endpoints.js';

function summary(endpoint: StripeWebhookEndpoint): EndpointSummary {
  return {
    kind: 'webhook_endpoint',
    id: endpoint.id,
    url: endpoint.url,
    events: endpoint.enabled_events,
    enabled: endpoint.status === 'enabled',
  };
}

async function listEndpoints(twin: Twin): Promise<EndpointSummary[]> {
  return (await twin.list(webhookEndpointKind.type)).map((r) => summary(webhookEndpointKind.of(r)));
}

// Stripe requires enabled_events; "*" is its own word for every type.
const enabledEventsOf = (request: EndpointRequest) => [...(requestedEvents(request) ?? ['*'])];

export const stripeCli: PackCli = {
  checkEndpoint(request) {
    enabledEvents(enabledEventsOf(request));
  },
  async addEndpoint(twin, request) {
    const endpoint = await createWebhookEndpoint(twin, {
      url: request.url,
      enabled_events: enabledEventsOf(request),
      ...(request.secret === undefined ? {} : { secret: request.secret }),
    });
    return { ...summary(endpoint), secret: endpoint.secret };
  },
  listEndpoints,
  async setEndpointEnabled(twin, endpoint, enabled) {
    await updateWebhookEndpoint(twin, endpoint.id, { disabled: !enabled });
  },
  async removeEndpoint(twin, endpoint) {
    await deleteWebhookEndpoint(twin, endpoint.id);
  },
  triggers: Object.fromEntries(
    Object.entries(recipes).map(([type, recipe]) => [
      type,
      trigger(recipe.keys, (twin, data) => recipe.run({ twin, data, ready: async () => {} })),
    ]),
  ),
};
