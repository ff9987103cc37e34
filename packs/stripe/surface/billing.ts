// Subscriptions (create, retrieve, update, cancel, list) and test clocks; invoices are invoices.ts.
// A test clock moves the ONE world clock (see docs/stripe-surface.md): advancing runs every
// renewal, invoice and webhook retry due on the way, each at its own instant, earliest first; the
// advance answers `advancing` as Stripe does and the clock reads `ready` afterwards.
import { commit, type JsonObject } from '../../../src/index.js';
import {
  cancelSubscription,
  createSubscription,
  updateSubscription,
  type CreateSubscriptionInput,
  type UpdateSubscriptionInput,
} from '../subscriptions.js';
import { StripeApiError } from './errors.js';
import { BY_CUSTOMER } from './indexes.js';
import { CREATED_LIST_PARAMS, LIST_PARAMS, listOf, orderedList } from './listing.js';
import { missing, packInput, retrieve } from './reads.js';
import { apiObject, stripeRoute } from './route.js';

const SUBSCRIPTION_EVENTS = [
  'customer.subscription.created',
  'invoice.created',
  'invoice.finalized',
  'invoice.paid',
  'invoice.payment_succeeded',
  'invoice.payment_failed',
  'payment_intent.created',
  'payment_intent.succeeded',
  'payment_intent.payment_failed',
  'payment_intent.requires_action',
  'charge.succeeded',
  'charge.failed',
  'customer.subscription.updated',
];

/** Moves the world clock to `to` (epoch ms), running what falls due: the host's advanceWorld. */
export type AdvanceClock = (to: number) => Promise<void>;

/**
 * subscriptions.list's `status`: none lists every subscription not canceled (Stripe's default),
 * `all` every one, `ended` the canceled and the incomplete_expired, any other value that status.
 */
function subscriptionStatusMatches(wanted: string | null | undefined, status: unknown): boolean {
  if (wanted == null) return status !== 'canceled';
  if (wanted === 'all') return true;
  if (wanted === 'ended') return status === 'canceled' || status === 'incomplete_expired';
  return status === wanted;
}

function testClockObject(
  id: string,
  frozen: number,
  name: string | null,
  created: number,
  status: string,
): JsonObject {
  return {
    id,
    object: 'test_helpers.test_clock',
    created,
    deletes_after: created + 7 * 86_400,
    frozen_time: frozen,
    livemode: false,
    name,
    status,
    status_details: {},
  };
}

export function billingRoutes(advance: AdvanceClock) {
  return [
    stripeRoute({
      method: 'POST',
      path: '/v1/subscriptions',
      sdk: 'subscriptions.create',
      kind: 'write',
      events: SUBSCRIPTION_EVENTS,
      params: {
        customer: 'string',
        items: { list: { price: 'string', quantity: 'integer' } },
        default_payment_method: 'string',
        trial_period_days: 'integer',
        description: 'string',
        metadata: 'metadata',
        payment_behavior: 'string',
        payment_settings: { save_default_payment_method: 'string' },
      },
      required: ['customer', 'items'],
      handle: async ({ twin, input }) =>
        apiObject(await createSubscription(twin, packInput<CreateSubscriptionInput>(input))),
    }),
    stripeRoute({
      method: 'GET',
      path: '/v1/subscriptions/:id',
      sdk: 'subscriptions.retrieve',
      kind: 'read',
      notIds: ['search'],
      handle: (ctx) => retrieve(ctx, 'subscription', 'subscription'),
    }),
    stripeRoute({
      method: 'POST',
      path: '/v1/subscriptions/:id',
      sdk: 'subscriptions.update',
      kind: 'write',
      events: ['customer.subscription.updated'],
      params: {
        cancel_at_period_end: 'boolean',
        default_payment_method: 'string',
        description: 'string',
        metadata: 'metadata',
      },
      async handle({ twin, params, input }) {
        const patch: Record<string, unknown> = {};
        for (const [k, v] of Object.entries(input))
          if (k !== 'expand' && v !== undefined) patch[k] = v;
        return apiObject(
          await updateSubscription(twin, params.id!, patch as UpdateSubscriptionInput),
        );
      },
    }),
    stripeRoute({
      method: 'DELETE',
      path: '/v1/subscriptions/:id',
      sdk: 'subscriptions.cancel',
      kind: 'write',
      events: ['customer.subscription.deleted'],
      handle: async ({ twin, params }) => apiObject(await cancelSubscription(twin, params.id!)),
    }),
    stripeRoute({
      method: 'GET',
      path: '/v1/subscriptions',
      sdk: 'subscriptions.list',
      kind: 'read',
      params: { ...CREATED_LIST_PARAMS, customer: 'string', status: 'string' },
      handle: ({ twin, input, url }) =>
        listOf(
          twin,
          {
            ...orderedList('subscription', input, [['customer', BY_CUSTOMER]]),
            keep: () => (r) =>
              (input.customer == null || r.fields.customer === input.customer) &&
              subscriptionStatusMatches(input.status as string | null | undefined, r.fields.status),
          },
          input,
          url,
        ),
    }),
    stripeRoute({
      method: 'POST',
      path: '/v1/test_helpers/test_clocks',
      sdk: 'testHelpers.testClocks.create',
      kind: 'write',
      params: { frozen_time: 'integer', name: 'string' },
      async handle({ twin, input }) {
        const nowMs = twin.world.clock.now();
        const frozen = input.frozen_time as number | null | undefined;
        if (frozen == null)
          throw new StripeApiError(
            400,
            'invalid_request_error',
            'parameter_missing',
            'Missing required param: frozen_time.',
            {},
            'frozen_time',
          );
        checkHorizon(frozen, Math.floor(nowMs / 1000));
        // One world clock: a frozen_time ahead moves it there; one behind starts the clock at now.
        if (frozen * 1000 > nowMs) await advance(frozen * 1000);
        const now = Math.floor(twin.world.clock.now() / 1000);
        const id = twin.world.ids.vendorId('clock', 24);
        const clock = testClockObject(
          id,
          now,
          (input.name as string | null | undefined) ?? null,
          now,
          'ready',
        );
        await twin.applyAtomic(() =>
          commit({
            operation: 'test_clock.create',
            subjectType: 'test_clock',
            subjectId: id,
            fields: clock,
          }),
        );
        return clock;
      },
    }),
    stripeRoute({
      method: 'GET',
      path: '/v1/test_helpers/test_clocks/:id',
      sdk: 'testHelpers.testClocks.retrieve',
      kind: 'read',
      handle: (ctx) => retrieve(ctx, 'test_clock', 'test_helpers.test_clock'),
    }),
    stripeRoute({
      method: 'GET',
      path: '/v1/test_helpers/test_clocks',
      sdk: 'testHelpers.testClocks.list',
      kind: 'read',
      params: LIST_PARAMS,
      handle: ({ twin, input, url }) => listOf(twin, orderedList('test_clock', input), input, url),
    }),
    stripeRoute({
      method: 'DELETE',
      path: '/v1/test_helpers/test_clocks/:id',
      sdk: 'testHelpers.testClocks.del',
      kind: 'write',
      async handle({ twin, params }) {
        await twin.applyAtomic((view) => {
          const r = view.get('test_clock', params.id!);
          if (r === undefined || r.deleted) throw missing('test_helpers.test_clock', params.id!);
          return commit({
            operation: 'test_clock.delete',
            subjectType: 'test_clock',
            subjectId: params.id!,
            delete: true,
          });
        });
        return { id: params.id!, object: 'test_helpers.test_clock', deleted: true };
      },
    }),
    stripeRoute({
      method: 'POST',
      path: '/v1/test_helpers/test_clocks/:id/advance',
      sdk: 'testHelpers.testClocks.advance',
      kind: 'write',
      events: [
        'invoice.created',
        'invoice.finalized',
        'invoice.paid',
        'invoice.payment_succeeded',
        'invoice.payment_failed',
        'invoice.upcoming',
        'customer.subscription.updated',
        'customer.subscription.deleted',
        'customer.subscription.trial_will_end',
        'payment_intent.canceled',
      ],
      params: { frozen_time: 'integer' },
      async handle({ twin, params, input }) {
        const r = await twin.get('test_clock', params.id!);
        if (r === undefined || r.deleted) throw missing('test_helpers.test_clock', params.id!);
        const frozen = input.frozen_time as number | null | undefined;
        const current = Number(r.fields.frozen_time);
        if (frozen == null || frozen <= current)
          throw new StripeApiError(
            400,
            'invalid_request_error',
            'parameter_invalid',
            `frozen_time must be after the clock's current frozen_time (${current}).`,
            {},
            'frozen_time',
          );
        checkHorizon(frozen, current);
        const worldNow = Math.floor(twin.world.clock.now() / 1000);
        if (frozen > worldNow) await advance(frozen * 1000);
        await twin.applyAtomic(() =>
          commit({
            operation: 'test_clock.advance',
            subjectType: 'test_clock',
            subjectId: params.id!,
            fields: { frozen_time: frozen, status: 'ready' },
          }),
        );
        // Stripe answers while the clock is still moving; this one has moved already.
        return { ...apiObject(r.fields), frozen_time: frozen, status: 'advancing' };
      },
    }),
  ];
}

/** How far one call may move a test clock: Stripe's bound for a clock without subscriptions. */
const HORIZON_S = 2 * 365 * 24 * 3600;

/**
 * A frozen_time more than two years past `from` (seconds) is refused, as Stripe refuses it: every
 * account's twin shares the one world clock, so a millisecond value taken for seconds would move
 * it tens of thousands of years, and no call could move it back.
 */
function checkHorizon(frozen: number, from: number): void {
  if (frozen - from <= HORIZON_S) return;
  const hint =
    frozen > 1e11 ? ' It is counted in seconds since the epoch; this looks like milliseconds.' : '';
  throw new StripeApiError(
    400,
    'invalid_request_error',
    'parameter_invalid',
    `frozen_time cannot be more than two years after ${from} (the clock's current time).${hint}`,
    {},
    'frozen_time',
  );
}
