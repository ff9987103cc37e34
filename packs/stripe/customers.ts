// Customers: create, update (metadata merged key by key, as Stripe does), delete. Each call is
// one atomic write that the pack turns into customer.created / .updated / .deleted.
import {
  canonicalJson,
  commit,
  skip,
  type JsonObject,
  type ReadView,
  type Twin,
} from '../../src/index.js';
import { VendorError } from '../kit/errors.js';
import { checker } from '../kit/input.js';
import { upperId } from '../kit/ids.js';
import { requirePackTwin } from '../kit/twin-checks.js';
import { priorRequest, requestProjection, type RequestOptions } from './api-requests.js';
import { checkEmail, noSuch, unknownParameter } from './errors.js';
import { stripeIds } from './ids.js';
import { mergeMetadata, metadataInput, type Metadata } from './metadata.js';
import { recordKind } from '../../src/index.js';
import { liveFields } from './common.js';

export type StripeCustomer = {
  id: string;
  object: 'customer';
  address: null;
  balance: number;
  created: number;
  currency: string | null;
  default_source: string | null;
  delinquent: boolean;
  description: string | null;
  email: string | null;
  invoice_prefix: string;
  invoice_settings: InvoiceSettings;
  livemode: false;
  metadata: Metadata;
  name: string | null;
  /** The number the customer's next finalized invoice gets (after invoice_prefix). */
  next_invoice_sequence: number;
  phone: string | null;
  preferred_locales: string[];
  shipping: null;
  tax_exempt: 'none' | 'exempt' | 'reverse';
  test_clock: null;
};

/** The customer records of the twin, typed (src/state/record-kind.ts). */
export const customerKind = recordKind<StripeCustomer>({ type: 'customer' });

export type InvoiceSettings = {
  custom_fields: null;
  /** The payment method invoices (and so subscription renewals) charge; one attached to this customer. */
  default_payment_method: string | null;
  footer: string | null;
  rendering_options: null;
};

export interface CustomerInput {
  email?: string | null;
  name?: string | null;
  description?: string | null;
  phone?: string | null;
  /** Merged key by key ("" unsets a key); null unsets every key. */
  metadata?: Record<string, string> | null;
  invoice_settings?: { default_payment_method?: string | null; footer?: string | null };
}

const KEYS = ['email', 'name', 'description', 'phone', 'metadata', 'invoice_settings'] as const;
const INVOICE_SETTINGS_KEYS = ['default_payment_method', 'footer'] as const;
const check = checker('stripe');

function params(input: CustomerInput): JsonObject {
  if (input === null || typeof input !== 'object') throw unknownParameter('input', KEYS);
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(input)) {
    if (!(KEYS as readonly string[]).includes(key)) throw unknownParameter(key, KEYS);
    if (value === undefined) continue;
    if (key === 'invoice_settings') {
      const settings: JsonObject = {};
      for (const [k, v] of Object.entries(check.object(value, key))) {
        if (!(INVOICE_SETTINGS_KEYS as readonly string[]).includes(k))
          throw unknownParameter(`invoice_settings.${k}`, INVOICE_SETTINGS_KEYS);
        settings[k] = check.optionalString(v, `invoice_settings.${k}`);
      }
      out[key] = settings;
    } else if (key === 'metadata') out[key] = metadataInput(value) ?? null;
    else if (key === 'email') out[key] = checkEmail(check.optionalString(value, key), key);
    else out[key] = check.optionalString(value, key);
  }
  return out;
}

/** Stripe refuses a default payment method that is not attached to the customer. */
function invoiceSettings(
  view: ReadView,
  customerId: string,
  current: InvoiceSettings,
  patch: JsonObject | undefined,
): InvoiceSettings {
  const next = { ...current, ...((patch ?? {}) as Partial<InvoiceSettings>) };
  const pm = next.default_payment_method;
  if (patch?.default_payment_method !== undefined && pm !== null) {
    const method = view.get('payment_method', pm);
    if (method === undefined || method.deleted || method.fields.customer !== customerId) {
      throw new VendorError(
        'stripe',
        'invalid_input',
        'resource_missing',
        `The customer does not have a payment method with the ID ${pm}. The payment method must be attached to the customer (attachPaymentMethod).`,
        {
          path: 'invoice_settings.default_payment_method',
        },
      );
    }
  }
  return next;
}

function live(view: ReadView, id: string): StripeCustomer {
  return liveFields(view, customerKind, id);
}

export function getCustomer(twin: Twin, id: string): Promise<StripeCustomer> {
  return twin.read((view) => live(view, id));
}

export async function createCustomer(
  twin: Twin,
  input: CustomerInput = {},
  options: RequestOptions = {},
): Promise<StripeCustomer> {
  requirePackTwin(twin, 'stripe');
  const p = params(input);
  const call = { method: 'POST', path: '/v1/customers', params: p } as const;
  return (
    await twin.applyAtomic((view) => {
      const prior = priorRequest(view, call, options);
      if (prior !== undefined) return skip(live(view, prior.id));
      const ids = twin.world.ids;
      const id = stripeIds.customer(ids);
      const customer: StripeCustomer = {
        id,
        object: 'customer',
        address: null,
        balance: 0,
        created: Math.floor(twin.world.clock.now() / 1000),
        currency: null,
        default_source: null,
        delinquent: false,
        description: (p.description as string | null | undefined) ?? null,
        email: (p.email as string | null | undefined) ?? null,
        invoice_prefix: upperId(ids, '', 8),
        invoice_settings: invoiceSettings(
          view,
          id,
          {
            custom_fields: null,
            default_payment_method: null,
            footer: null,
            rendering_options: null,
          },
          p.invoice_settings as JsonObject | undefined,
        ),
        livemode: false,
        metadata: mergeMetadata({}, p.metadata as JsonObject | null | undefined),
        name: (p.name as string | null | undefined) ?? null,
        next_invoice_sequence: 1,
        phone: (p.phone as string | null | undefined) ?? null,
        preferred_locales: [],
        shipping: null,
        tax_exempt: 'none',
        test_clock: null,
      };
      return commit(
        {
          operation: 'customer.create',
          subjectType: 'customer',
          subjectId: id,
          fields: customer,
          projection: {
            creates: [requestProjection(twin, call, options, { type: 'customer', id })],
          },
        },
        customer,
      );
    })
  ).result;
}

export async function updateCustomer(
  twin: Twin,
  id: string,
  patch: CustomerInput,
  options: RequestOptions = {},
): Promise<StripeCustomer> {
  requirePackTwin(twin, 'stripe');
  const p = params(patch);
  const call = { method: 'POST', path: `/v1/customers/${id}`, params: p } as const;
  return (
    await twin.applyAtomic((view) => {
      const prior = priorRequest(view, call, options);
      if (prior !== undefined) return skip(live(view, prior.id));
      const current = live(view, id);
      const fields: JsonObject = { ...p };
      if (p.metadata !== undefined)
        fields.metadata = mergeMetadata(current.metadata, p.metadata as JsonObject | null);
      if (p.invoice_settings !== undefined)
        fields.invoice_settings = invoiceSettings(
          view,
          id,
          current.invoice_settings,
          p.invoice_settings as JsonObject,
        );
      const next = { ...current, ...fields } as StripeCustomer;
      // Stripe sends customer.updated only when something changed.
      if (canonicalJson(next) === canonicalJson(current)) return skip(current);
      return commit(
        {
          operation: 'customer.update',
          subjectType: 'customer',
          subjectId: id,
          fields,
          projection: {
            creates: [requestProjection(twin, call, options, { type: 'customer', id })],
          },
        },
        next,
      );
    })
  ).result;
}

export async function deleteCustomer(
  twin: Twin,
  id: string,
  options: RequestOptions = {},
): Promise<{ id: string; object: 'customer'; deleted: true }> {
  requirePackTwin(twin, 'stripe');
  const call = { method: 'DELETE', path: `/v1/customers/${id}`, params: {} } as const;
  const answer = { id, object: 'customer', deleted: true } as const;
  return (
    await twin.applyAtomic((view) => {
      if (priorRequest(view, call, options) !== undefined) return skip(answer);
      live(view, id);
      return commit(
        {
          operation: 'customer.delete',
          subjectType: 'customer',
          subjectId: id,
          delete: true,
          projection: {
            creates: [requestProjection(twin, call, options, { type: 'customer', id })],
          },
        },
        answer,
      );
    })
  ).result;
}
