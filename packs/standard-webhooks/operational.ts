// Svix's operational webhooks: endpoints the sender itself subscribes (in Svix, the dashboard's
// Operational Webhooks section; https://docs.svix.com/incoming-webhooks) to hear about its own
// environment. The twin sends `endpoint.disabled` to them through the same dispatcher, signed the
// same way, when health disables an app endpoint after Svix's five days: its body is Svix's
// EndpointDisabledEvent, {type, data: {appId, appUid, endpointId, failSince, trigger}}.
import type { JsonValue, ReadView, Twin } from '../../src/index.js';
import { checker } from '../kit/input.js';
import { secretRefFor, withStoredSecret } from '../kit/twin-checks.js';
import { checkSecret } from './endpoints.js';
import { swIds } from './ids.js';
import { owningPack } from './owning-pack.js';

/** The operational event types the twin sends. */
export const OPERATIONAL_TYPES = ['endpoint.disabled'] as const;

export type SwOperationalEndpoint = {
  id: string;
  url: string;
  description: string;
  disabled: boolean;
  createdAt: string;
  secretRef: string;
  eventFilter: string[];
};

const check = checker('standard-webhooks');

/** Subscribes `url` to the sender's operational webhooks; answers its signing secret alongside. */
export async function createOperationalEndpoint(
  twin: Twin,
  input: { url: string; secret?: string; description?: string },
): Promise<SwOperationalEndpoint & { secret: string }> {
  owningPack(twin);
  const url = check.url(input.url, 'url');
  const secret =
    input.secret === undefined ? swIds.secret(twin.world.ids) : checkSecret(input.secret, 'secret');
  const id = swIds.endpoint(twin.world.ids);
  const endpoint: SwOperationalEndpoint = {
    id,
    url,
    description: input.description ?? '',
    disabled: false,
    createdAt: new Date(twin.world.clock.now()).toISOString(),
    secretRef: secretRefFor(twin, id),
    eventFilter: [...OPERATIONAL_TYPES],
  };
  await withStoredSecret(twin, endpoint.secretRef, secret, () =>
    twin.applyWrite({
      operation: 'operational_endpoint.create',
      subjectType: 'operational_endpoint',
      subjectId: id,
      fields: endpoint,
    }),
  );
  return { ...endpoint, secret };
}

/**
 * The `data` of Svix's `endpoint.disabled` for the app endpoint `endpointId`, read in the commit
 * that disabled it: `failSince` is when its failing run began.
 */
export function endpointDisabledData(
  view: ReadView,
  app: string,
  endpointId: string,
): Record<string, JsonValue> {
  // The kernel's endpoint_health record (docs/endpoint-health.md), keyed kind:id.
  const failSince = view.get('endpoint_health', `endpoint:${endpointId}`)?.fields.failingSince;
  return {
    appId: `app_${app}`,
    appUid: app,
    endpointId,
    failSince: typeof failSince === 'string' ? failSince : null,
    trigger: 'automatic',
  };
}
