// A small vendor pack for kernel tests: customers and webhook endpoints, Standard Webhooks signing.
import type { Pack } from '../../src/events/pack-registry.js';
import type { RetryPolicy } from '../../src/events/retry.js';
import type { Twin } from '../../src/world/twin.js';

export function acmePack(retry?: RetryPolicy, name = 'acme'): Pack {
  return {
    name,
    events: {
      rules: [
        { operation: 'customer.create', types: ['customer.created'] },
        { operation: 'customer.update', types: ['customer.updated'] },
        { operation: 'customer.delete', types: ['customer.deleted'] },
        {
          operation: 'order.place',
          types: ['order.placed', 'order.audit'],
          when: (type, ctx) => type !== 'order.audit' || ctx.entry.fields?.audit === true,
        },
      ],
      envelope: {
        id: '$id',
        type: '$type',
        created: '$created',
        data: { object: '$object', previous: '$previous' },
        pending: '$endpointCount',
      },
      eventIdPrefix: 'evt_',
      messageIdPrefix: 'msg_',
      endpoints: [
        {
          type: 'endpoint',
          urlField: 'url',
          secretRefField: 'secret_ref',
          eventsField: 'events',
          enabledWhen: { field: 'status', value: 'enabled' },
        },
      ],
      signing: 'standard-webhooks',
      recordType: 'delivery',
      ...(retry === undefined ? {} : { retry }),
      headers: ({ attempt }) => ({
        'user-agent': 'acme-webhooks/1.0',
        'x-acme-attempt': String(attempt),
      }),
      timeoutMs: 2_000,
    },
  };
}

export const ACME_SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

/** Creates the enabled endpoint `ep` taking every event at `inproc://ep` (its secret ref: `ep`). */
export async function createAcmeEndpoint(twin: Twin): Promise<void> {
  await twin.applyWrite({
    operation: 'endpoint.create',
    subjectType: 'endpoint',
    subjectId: 'ep',
    fields: { url: 'inproc://ep', secret_ref: 'ep', events: ['*'], status: 'enabled' },
  });
}
