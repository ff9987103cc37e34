// `twinworld endpoints … <sender>` and `twinworld trigger <sender> <type>` for a Standard
// Webhooks sender: endpoints in Svix's shape (a whsec_ secret generated when none is given;
// filterTypes null = every type), and a trigger per declared type that sends one message, its
// payload the type's example with `--data` merged over it.
import type { JsonObject, Twin } from '../../src/index.js';
import { requestedEvents, trigger, type EndpointSummary, type PackCli } from '../kit/cli.js';
import { VendorError } from '../kit/errors.js';
import { createEndpoint, deleteEndpoint, updateEndpoint, type SwEndpoint } from './endpoints.js';
import { sendMessage } from './messages.js';
import { swEndpointKind } from './endpoints.js';

function summary(endpoint: SwEndpoint): EndpointSummary {
  return {
    kind: 'endpoint',
    id: endpoint.id,
    url: endpoint.url,
    events: endpoint.filterTypes ?? ['*'],
    enabled: !endpoint.disabled,
  };
}

async function listEndpoints(twin: Twin): Promise<EndpointSummary[]> {
  return (await twin.list('endpoint')).map((r) => summary(swEndpointKind.of(r)));
}

export function standardWebhooksCli(
  types: readonly string[],
  examples: Readonly<Record<string, JsonObject>>,
): PackCli {
  return {
    // The same refusal createEndpoint gives for a type the sender does not declare.
    checkEndpoint(request) {
      const unknown = requestedEvents(request)?.find((t) => t !== '*' && !types.includes(t));
      if (unknown !== undefined)
        throw new VendorError(
          'standard-webhooks',
          'invalid_input',
          'unknown_event_type',
          `filterTypes holds "${unknown}", which this sender does not declare; known: ${types.join(', ')}`,
          { path: 'filterTypes' },
        );
    },
    async addEndpoint(twin, request) {
      const events = requestedEvents(request);
      const endpoint = await createEndpoint(twin, {
        url: request.url,
        // Svix has no "*": no filter (null) is how an endpoint takes every type.
        filterTypes: events === undefined || events.includes('*') ? null : [...events],
        ...(request.secret === undefined ? {} : { secret: request.secret }),
      });
      return { ...summary(endpoint), secret: endpoint.secret };
    },
    listEndpoints,
    async setEndpointEnabled(twin, endpoint, enabled) {
      await updateEndpoint(twin, endpoint.id, { disabled: !enabled });
    },
    async removeEndpoint(twin, endpoint) {
      await deleteEndpoint(twin, endpoint.id);
    },
    triggers: Object.fromEntries(
      types.map((type) => [
        type,
        trigger('any', (twin, data) =>
          sendMessage(twin, { eventType: type, payload: { ...examples[type], ...data } }),
        ),
      ]),
    ),
  };
}
