// Webhook endpoints (we_…): url, enabled_events ('*' or exact types), status enabled/disabled.
// The whsec_ signing secret is returned once, at creation, and kept in world.secrets — the
// endpoint in the log holds only a reference to it.
import { commit, type JsonObject, type ReadView, type Twin } from '../../src/index.js';
import { VendorError } from '../kit/errors.js';
import { checker } from '../kit/input.js';
import { requirePackTwin, secretRefFor, withStoredSecret } from '../kit/twin-checks.js';
import { noSuch, unknownParameter } from './errors.js';
import { stripeIds } from './ids.js';
import { mergeMetadata, metadataInput, type Metadata } from './metadata.js';
import { STRIPE_EVENT_TYPES } from './event-types.js';
import { recordKind } from '../../src/index.js';
import { liveFields } from './common.js';

export type StripeWebhookEndpoint = {
  id: string;
  object: 'webhook_endpoint';
  api_version: string | null;
  application: null;
  created: number;
  description: string | null;
  enabled_events: string[];
  livemode: false;
  metadata: Metadata;
  status: 'enabled' | 'disabled';
  url: string;
  /** Where world.secrets keeps this endpoint's signing secret (a twin field, not Stripe's). */
  secret_ref: string;
};

/** The webhook_endpoint records of the twin, typed (src/state/record-kind.ts). */
export const webhookEndpointKind = recordKind<StripeWebhookEndpoint>({ type: 'webhook_endpoint' });

export interface CreateWebhookEndpointInput {
  url: string;
  enabled_events: string[];
  description?: string;
  /** Merged key by key ("" unsets a key); null unsets every key. */
  metadata?: Record<string, string> | null;
  api_version?: string;
  /** Defaults to a fresh whsec_ secret drawn from the world's id source. */
  secret?: string;
}

export interface UpdateWebhookEndpointInput {
  url?: string;
  enabled_events?: string[];
  description?: string;
  /** Merged key by key ("" unsets a key); null unsets every key. */
  metadata?: Record<string, string> | null;
  /** Stripe's way to pause an endpoint: disabled=true sets status "disabled". */
  disabled?: boolean;
}

const check = checker('stripe');
const UPDATE_KEYS = ['url', 'enabled_events', 'description', 'metadata', 'disabled'] as const;

/** Stripe's refusal of an enabled_events list: empty, or a type this twin does not send. */
export function enabledEvents(value: unknown): string[] {
  const events = check.stringArray(value, 'enabled_events');
  if (events.length === 0)
    throw new VendorError(
      'stripe',
      'invalid_input',
      'parameter_missing',
      'enabled_events must list at least one event type, or "*" for all',
      { path: 'enabled_events' },
    );
  for (const type of events) {
    if (type !== '*' && !STRIPE_EVENT_TYPES.includes(type)) {
      throw new VendorError(
        'stripe',
        'invalid_input',
        'parameter_invalid',
        `enabled_events holds "${type}", which this twin does not send; use "*" or one of: ${STRIPE_EVENT_TYPES.join(', ')}`,
        {
          path: 'enabled_events',
        },
      );
    }
  }
  return events;
}

function live(view: ReadView, id: string): StripeWebhookEndpoint {
  return liveFields(view, webhookEndpointKind, id);
}

/** Creates the endpoint and answers it with its `secret`, as Stripe does only on creation. */
export async function createWebhookEndpoint(
  twin: Twin,
  input: CreateWebhookEndpointInput,
): Promise<StripeWebhookEndpoint & { secret: string }> {
  requirePackTwin(twin, 'stripe');
  const url = check.url(input?.url, 'url');
  const events = enabledEvents(input.enabled_events);
  const description = check.optionalString(input.description, 'description');
  const apiVersion = check.optionalString(input.api_version, 'api_version');
  const secret =
    input.secret === undefined
      ? stripeIds.signingSecret(twin.world.ids)
      : check.secret(input.secret, 'secret');
  const id = stripeIds.webhookEndpoint(twin.world.ids);
  const ref = secretRefFor(twin, id);
  const endpoint: StripeWebhookEndpoint = {
    id,
    object: 'webhook_endpoint',
    api_version: apiVersion,
    application: null,
    created: Math.floor(twin.world.clock.now() / 1000),
    description,
    enabled_events: events,
    livemode: false,
    metadata: mergeMetadata({}, input.metadata as JsonObject | undefined),
    status: 'enabled',
    url,
    secret_ref: ref,
  };
  await withStoredSecret(twin, ref, secret, () =>
    twin.applyWrite({
      operation: 'webhook_endpoint.create',
      subjectType: 'webhook_endpoint',
      subjectId: id,
      fields: endpoint,
    }),
  );
  return { ...endpoint, secret };
}

export async function updateWebhookEndpoint(
  twin: Twin,
  id: string,
  input: UpdateWebhookEndpointInput,
): Promise<StripeWebhookEndpoint> {
  requirePackTwin(twin, 'stripe');
  const fields: JsonObject = {};
  for (const [key, value] of Object.entries(input ?? {})) {
    if (!(UPDATE_KEYS as readonly string[]).includes(key)) throw unknownParameter(key, UPDATE_KEYS);
    if (value === undefined) continue;
    if (key === 'url') fields.url = check.url(value, 'url');
    else if (key === 'enabled_events') fields.enabled_events = enabledEvents(value);
    else if (key === 'description') fields.description = check.optionalString(value, 'description');
    else if (key === 'disabled')
      fields.status = check.boolean(value, 'disabled') ? 'disabled' : 'enabled';
  }
  return (
    await twin.applyAtomic((view) => {
      const current = live(view, id);
      if (input.metadata !== undefined)
        fields.metadata = mergeMetadata(current.metadata, metadataInput(input.metadata));
      return commit(
        {
          operation: 'webhook_endpoint.update',
          subjectType: 'webhook_endpoint',
          subjectId: id,
          fields,
        },
        { ...current, ...fields } as StripeWebhookEndpoint,
      );
    })
  ).result;
}

export async function deleteWebhookEndpoint(
  twin: Twin,
  id: string,
): Promise<{ id: string; object: 'webhook_endpoint'; deleted: true }> {
  requirePackTwin(twin, 'stripe');
  await twin.applyAtomic((view) => {
    live(view, id);
    return commit({
      operation: 'webhook_endpoint.delete',
      subjectType: 'webhook_endpoint',
      subjectId: id,
      delete: true,
    });
  });
  await twin.world.secrets.delete(secretRefFor(twin, id));
  return { id, object: 'webhook_endpoint', deleted: true };
}
