// Stripe fidelity at run time, against Stripe's own reference: the interfaces stripe-node generates
// from Stripe's OpenAPI spec (read from node_modules/stripe by stripe-sdk-reference.ts, not written
// here). Every scenario of the pack runs in a world with a "*" endpoint, so every event any of
// them renders — not only the one each is for — is checked: the envelope against Stripe's
// EventBase, data.object against the interface Events.d.ts names for that event type, with every
// required key present (recursively) and no null where the type allows none.
import { describe, expect, it } from 'vitest';
import { openWorld, registerPack, VirtualClock } from '../../src/index.js';
import * as stripe from '../../packs/stripe/index.js';
import { SdkReference } from './stripe-sdk-reference.js';
import { TYPE_CHECKED_EVENTS } from './stripe-sdk-types.js';

const reference = new SdkReference();
const SECRET = 'whsec_fidelity0123456789abcdefghijklmn';

type Rendered = { type: string; data: { object: Record<string, unknown> } } & Record<
  string,
  unknown
>;

async function renderAll(eventType: string): Promise<Rendered[]> {
  const world = openWorld({
    root: ':memory:',
    clock: new VirtualClock('2026-03-01T00:00:00Z'),
    seed: `fidelity/${eventType}`,
  });
  try {
    const twin = registerPack(world, stripe.pack);
    const all = await stripe.createWebhookEndpoint(twin, {
      url: 'http://127.0.0.1:9/all',
      enabled_events: ['*'],
      secret: SECRET,
    });
    await stripe.scenarios[eventType]!({
      twin,
      target: { url: 'http://127.0.0.1:9/one', secret: SECRET },
      data: undefined,
    });
    return (await twin.list('webhook_delivery'))
      .filter((d) => d.fields.endpointId === all.id)
      .sort((a, b) => a.version - b.version)
      .map((d) => JSON.parse(String(d.fields.body)) as Rendered);
  } finally {
    await world.close();
  }
}

describe('stripe: rendered events against stripe-node 23.1.0 types', () => {
  it('the reader of the SDK types finds what Stripe declares (checked on known facts)', () => {
    const customer = reference.get('resources/Customers.d.ts', 'Customer');
    expect(reference.requiredKeys(customer)).toEqual(
      expect.arrayContaining([
        'id',
        'object',
        'balance',
        'invoice_settings',
        'metadata',
        'shipping',
      ]),
    );
    expect(reference.requiredKeys(customer)).not.toContain('address'); // optional (`address?:`) in the SDK
    expect(reference.eventObject('invoice.paid').key).toBe('resources/Invoices.d.ts#Invoice');
    expect(reference.eventObject('charge.dispute.created').key).toBe(
      'resources/Disputes.d.ts#Dispute',
    );
    expect(reference.missingKeys(customer, { id: 'cus_1', object: 'customer' })).toContain(
      'missing invoice_settings',
    );
    expect(
      reference.missingKeys(customer, { invoice_settings: { custom_fields: null } }),
    ).toContain('missing invoice_settings.footer');
    expect(reference.missingKeys(customer, { balance: null })).toContain('null balance (number)');
  });

  it('every event type the pack sends is type-checked in stripe-sdk-types.ts, and the lists agree', () => {
    expect([...stripe.STRIPE_EVENT_TYPES].sort()).toEqual([...TYPE_CHECKED_EVENTS].sort());
    expect(Object.keys(stripe.scenarios).sort()).toEqual([...stripe.STRIPE_EVENT_TYPES].sort());
  });

  const envelope = reference.get('resources/Events.d.ts', 'EventBase');
  const seen = new Set<string>();
  for (const eventType of stripe.STRIPE_EVENT_TYPES) {
    it(`${eventType}: every rendered event carries every field Stripe's types require`, async () => {
      const events = await renderAll(eventType);
      expect(events.map((e) => e.type)).toContain(eventType);
      for (const event of events) {
        seen.add(event.type);
        expect(reference.missingKeys(envelope, event), `${event.type} envelope`).toEqual([]);
        expect(
          reference.missingKeys(reference.eventObject(event.type), event.data.object),
          `${event.type} data.object`,
        ).toEqual([]);
        expect(event.api_version).toBe(stripe.STRIPE_API_VERSION);
      }
    });
  }

  it('between them the scenarios rendered every event type', () => {
    for (const type of stripe.STRIPE_EVENT_TYPES) expect(seen, type).toContain(type);
  });
});
