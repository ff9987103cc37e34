// A Standard Webhooks sender for any app, as a pack factory: declare the app's event types and
// get endpoints with filterTypes, {type, timestamp, data} bodies, webhook-id/-timestamp/
// -signature headers (one v1 signature per active secret), and the Svix retry schedule.
import { SVIX_HEALTH } from './health.js';
import { TwinError, type JsonObject, type RetryPolicy } from '../../src/index.js';
import type { Scenario, VendorPack } from '../kit/vendor-pack.js';
import { standardWebhooksCli } from './cli.js';
import { createEndpoint, updateEndpoint } from './endpoints.js';
import { swIdShapes } from './ids.js';
import { sendMessage } from './messages.js';
import { endpointDisabledData, OPERATIONAL_TYPES } from './operational.js';

/** Svix: immediately, then 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, each ±20%. */
export const SVIX_RETRY: RetryPolicy = {
  delaysMs: [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000],
  jitter: 0.2,
  retryOn: ['failed', 'unknown'],
  honorRetryAfter: true,
};

export interface StandardWebhooksPackOptions {
  /** Pack and twin name, e.g. "acme". */
  readonly name: string;
  /** The event types the app sends, e.g. ["invoice.paid"]. */
  readonly eventTypes: readonly string[];
  /** A payload per type for `twinworld send` when no --data is given. */
  readonly examples?: Readonly<Record<string, JsonObject>>;
  readonly description?: string;
  readonly userAgent?: string;
  readonly retry?: RetryPolicy;
  readonly timeoutMs?: number;
}

function scenario(type: string, example: JsonObject | undefined): Scenario {
  return async (ctx) => {
    const endpoint = await createEndpoint(ctx.twin, {
      url: ctx.target.url,
      secret: ctx.target.secret,
      filterTypes: [type],
      description: `twinworld send ${type}`,
    });
    await sendMessage(ctx.twin, { eventType: type, payload: ctx.data ?? example ?? {} });
    return { endpointKind: 'endpoint', endpointId: endpoint.id };
  };
}

export function createStandardWebhooksPack(options: StandardWebhooksPackOptions): VendorPack {
  const types = [...new Set(options.eventTypes)];
  if (
    types.length === 0 ||
    types.some((t) => typeof t !== 'string' || !/^[A-Za-z0-9_.-]+$/.test(t))
  ) {
    throw new TwinError(
      'INVALID_CONFIG',
      'eventTypes must name at least one type made of letters, digits, ".", "_" and "-" (e.g. "invoice.paid")',
      { path: 'eventTypes' },
    );
  }
  return {
    name: options.name,
    description: options.description ?? `${options.name}: a Standard Webhooks sender`,
    events: {
      // One message write, one event: `when` keeps only the type the message names. An endpoint
      // disabled by Svix's rule (health.ts) is announced to the operational endpoints only.
      rules: [
        {
          operation: 'message.create',
          types,
          when: (type, ctx) => ctx.entry.fields?.eventType === type,
          endpointKinds: ['endpoint'],
        },
        {
          operation: 'endpoint.health_disable',
          types: [...OPERATIONAL_TYPES],
          endpointKinds: ['operational_endpoint'],
        },
      ],
      envelope: { type: '$type', timestamp: '$timestamp', data: '$data' },
      // Svix's operational events carry {type, data} only.
      values: (ctx) =>
        ctx.entry.operation === 'endpoint.health_disable'
          ? {
              timestamp: undefined,
              data: endpointDisabledData(ctx.view, options.name, ctx.entry.subjectId),
            }
          : { timestamp: ctx.subject?.fields.timestamp, data: ctx.subject?.fields.payload },
      eventIdPrefix: 'evt_',
      // webhook-id is the message's own id (the one sendMessage answers): one id on every
      // endpoint and every attempt, as the specification and Svix have it.
      messageId: (ctx) =>
        ctx.entry.operation === 'message.create'
          ? ctx.entry.subjectId
          : ctx.eventId.replace(/^evt_/, 'msg_'),
      endpoints: [
        {
          type: 'endpoint',
          urlField: 'url',
          secretRefField: 'secretRef',
          eventsField: 'eventFilter',
          enabledWhen: { field: 'disabled', value: false },
          rateField: 'throttleRate',
        },
        {
          type: 'operational_endpoint',
          urlField: 'url',
          secretRefField: 'secretRef',
          eventsField: 'eventFilter',
          enabledWhen: { field: 'disabled', value: false },
        },
      ],
      signing: 'standard-webhooks',
      recordType: 'delivery',
      retry: options.retry ?? SVIX_RETRY,
      health: SVIX_HEALTH,
      headers: () => ({
        'User-Agent':
          options.userAgent ?? 'Standard-Webhooks-Twin/1.0 (+https://www.standardwebhooks.com/)',
      }),
      // Svix gives a receiver 15 seconds.
      timeoutMs: options.timeoutMs ?? 15_000,
    },
    scenarios: Object.fromEntries(types.map((t) => [t, scenario(t, options.examples?.[t])])),
    cli: standardWebhooksCli(types, options.examples ?? {}),
    idShapes: swIdShapes,
    retireEndpoint: async (twin, _kind, id) =>
      void (await updateEndpoint(twin, id, { disabled: true })),
  };
}

/** The built-in sender `twinworld send standard-webhooks <type>` uses. */
export const standardWebhooksPack: VendorPack = createStandardWebhooksPack({
  name: 'standard-webhooks',
  description:
    'Standard Webhooks: a generic sender with endpoint secret rotation and the Svix retry schedule',
  eventTypes: [
    'contact.created',
    'contact.updated',
    'contact.deleted',
    'invoice.paid',
    'invoice.payment_failed',
  ],
  examples: {
    'contact.created': { id: 'contact_01', name: 'Ada Lovelace', email: 'ada@example.com' },
    'contact.updated': { id: 'contact_01', name: 'Ada King', email: 'ada@example.com' },
    'contact.deleted': { id: 'contact_01' },
    'invoice.paid': { id: 'inv_01', amount_paid: 2000, currency: 'usd', status: 'paid' },
    'invoice.payment_failed': { id: 'inv_01', amount_due: 2000, currency: 'usd', status: 'open' },
  },
});
