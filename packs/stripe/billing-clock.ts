// Stripe's billing on the world clock, like a Stripe test clock: everything Stripe does by itself
// as time passes, derived from the log rather than from timers — a subscription whose
// current_period_end has passed renews (customer.subscription.updated + invoice.created, or
// customer.subscription.deleted when it was set to cancel at period end); a draft finalizes an
// hour later and is charged; failed charges retry on RETRY_SCHEDULE_DAYS; three days ahead come
// customer.subscription.trial_will_end and invoice.upcoming; open Checkout Sessions expire; an
// incomplete subscription still unpaid after 23 hours expires (incomplete-expiry.ts).
//
// advanceBilling(twin) does what is due at the clock's now, one commit at a time in due order,
// each decide re-checking the log, so calling it twice (or after a crash midway) writes nothing
// twice. billingDueAt(twin) says when the next thing falls due; advanceWithBilling steps a walk
// to each of those instants, so every write carries the time Stripe would have written it at.
import {
  commit,
  skip,
  TwinError,
  type Decision,
  type ReadView,
  type RecordKind,
  type Twin,
  type Write,
} from '../../src/index.js';
import { requirePackTwin } from '../kit/twin-checks.js';
import { expireDecision, type StripeCheckoutSession } from './checkout-sessions.js';
import { asJson, liveFields } from './common.js';
import type { StripeCustomer } from './customers.js';
import { stripeIds } from './ids.js';
import { invoiceObject, type StripeInvoice } from './invoice-objects.js';
import { collectDecision, finalizeDecision } from './invoice-stages.js';
import { expireIncompleteDecision, incompleteExpiresAt } from './incomplete-expiry.js';
import { DAYS, nextBoundary } from './periods.js';
import {
  currentPeriod,
  RENEWING,
  type Period,
  type StripeSubscription,
} from './subscription-objects.js';
import { draftInvoice, linesFor } from './subscription-invoice-drafts.js';
import { customerKind } from './customers.js';
import { subscriptionKind } from './subscription-objects.js';
import { invoiceKind } from './invoice-objects.js';
import { checkoutSessionKind } from './checkout-sessions.js';

/** Stripe's notice period for trial_will_end, and the twin's for invoice.upcoming (Stripe's default setting). */
export const NOTICE_DAYS = 3;
/** Stripe finalizes a renewal's draft invoice about an hour after creating it. */
export const FINALIZE_AFTER_SEC = 3600;
export const STATUS_INDEX = 'status';

export type BillingStep =
  | 'renew'
  | 'trial_will_end'
  | 'invoice_upcoming'
  | 'finalize'
  | 'collect'
  | 'expire_incomplete'
  | 'expire_checkout';

export interface DueWork {
  /** Unix seconds. */
  readonly at: number;
  readonly step: BillingStep;
  readonly id: string;
}

const ORDER: readonly BillingStep[] = [
  'invoice_upcoming',
  'trial_will_end',
  'renew',
  'finalize',
  'collect',
  // After a collection due at the same instant: a payment in time keeps the subscription.
  'expire_incomplete',
  'expire_checkout',
];

function byStatus<F extends object>(
  view: ReadView,
  kind: RecordKind<F>,
  statuses: readonly string[],
): F[] {
  return statuses.flatMap((s) => kind.lookup(view, STATUS_INDEX, s));
}

function noticeId(kind: 'trial_will_end' | 'invoice_upcoming', sub: string, at: number): string {
  return `${kind}:${sub}:${at}`;
}

/** The period a subscription renews into from `period`. */
export function nextPeriod(sub: StripeSubscription, period: Period): Period {
  const recurring = sub.items.data[0]!.price.recurring!;
  return {
    start: period.end,
    end: nextBoundary(
      sub.billing_cycle_anchor,
      recurring.interval,
      recurring.interval_count,
      period.end,
    ),
  };
}

// Both notices fall due NOTICE_DAYS before the period ends, or at its start when it is shorter.
function trialNoticeAt(sub: StripeSubscription): number | undefined {
  if (sub.status !== 'trialing' || sub.trial_end === null) return undefined;
  return Math.max(sub.trial_start ?? sub.trial_end, sub.trial_end - DAYS(NOTICE_DAYS));
}

function upcomingAt(sub: StripeSubscription): number | undefined {
  if (!RENEWING.includes(sub.status) || sub.cancel_at_period_end) return undefined;
  const period = currentPeriod(sub);
  return Math.max(period.start, period.end - DAYS(NOTICE_DAYS));
}

/** Everything that falls due, at or before `until` (Unix seconds), in the order it runs. */
export function dueWork(view: ReadView, until = Infinity): DueWork[] {
  const out: DueWork[] = [];
  const add = (at: number | null | undefined, step: BillingStep, id: string) => {
    if (at !== null && at !== undefined && at <= until) out.push({ at, step, id });
  };
  for (const sub of byStatus(view, subscriptionKind, RENEWING)) {
    add(currentPeriod(sub).end, 'renew', sub.id);
    const trial = trialNoticeAt(sub);
    if (
      trial !== undefined &&
      view.get('billing_notice', noticeId('trial_will_end', sub.id, sub.trial_end!)) === undefined
    )
      add(trial, 'trial_will_end', sub.id);
    const upcoming = upcomingAt(sub);
    if (
      upcoming !== undefined &&
      view.get('billing_notice', noticeId('invoice_upcoming', sub.id, currentPeriod(sub).end)) ===
        undefined
    )
      add(upcoming, 'invoice_upcoming', sub.id);
  }
  for (const sub of byStatus(view, subscriptionKind, ['incomplete']))
    add(incompleteExpiresAt(sub), 'expire_incomplete', sub.id);
  for (const inv of byStatus(view, invoiceKind, ['draft']))
    add(inv.automatically_finalizes_at, 'finalize', inv.id);
  for (const inv of byStatus(view, invoiceKind, ['open']))
    add(inv.amount_due === 0 ? inv.effective_at : inv.next_payment_attempt, 'collect', inv.id);
  for (const cs of byStatus(view, checkoutSessionKind, ['open']))
    add(cs.expires_at, 'expire_checkout', cs.id);
  return out.sort(
    (a, b) =>
      a.at - b.at ||
      ORDER.indexOf(a.step) - ORDER.indexOf(b.step) ||
      (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  );
}

function renewDecision(twin: Twin, view: ReadView, id: string, nowSec: number): Decision<boolean> {
  const sub = subscriptionKind.fieldsAt(view, id);
  if (sub === undefined || !RENEWING.includes(sub.status)) return skip(false);
  const period = currentPeriod(sub);
  if (period.end > nowSec) return skip(false);
  if (sub.cancel_at_period_end) {
    const fields = asJson({ status: 'canceled', ended_at: period.end });
    return commit(
      { operation: 'subscription.end', subjectType: 'subscription', subjectId: id, fields },
      true,
    );
  }
  const next = nextPeriod(sub, period);
  const items = {
    ...sub.items,
    data: sub.items.data.map((item) => ({
      ...item,
      current_period_start: next.start,
      current_period_end: next.end,
    })),
  };
  const trialEnds = sub.status === 'trialing';
  const renewed: StripeSubscription = { ...sub, items, status: trialEnds ? 'active' : sub.status };
  // Finalized an hour after the period turned over (at once when billing runs later than that).
  const { invoice, write } = draftInvoice(
    twin,
    view,
    renewed,
    'subscription_cycle',
    period,
    false,
    period.end + FINALIZE_AFTER_SEC,
  );
  const fields = asJson({
    items,
    latest_invoice: invoice.id,
    ...(trialEnds ? { status: 'active' } : {}),
  });
  const writes: Write[] = [
    { operation: 'subscription.renew', subjectType: 'subscription', subjectId: id, fields },
    write,
  ];
  return commit(writes, true);
}

function trialNoticeDecision(view: ReadView, id: string, nowSec: number): Decision<boolean> {
  const sub = subscriptionKind.fieldsAt(view, id);
  const at = sub === undefined ? undefined : trialNoticeAt(sub);
  if (sub === undefined || at === undefined || at > nowSec) return skip(false);
  const marker = noticeId('trial_will_end', id, sub.trial_end!);
  if (view.get('billing_notice', marker) !== undefined) return skip(false);
  return commit(
    {
      operation: 'subscription.trial_will_end',
      subjectType: 'subscription',
      subjectId: id,
      projection: {
        creates: [
          {
            type: 'billing_notice',
            id: marker,
            fields: { kind: 'trial_will_end', subscription: id, at: sub.trial_end! },
          },
        ],
      },
    },
    true,
  );
}

/** invoice.upcoming: a preview of the invoice the next renewal will make, kept as an upcoming_invoice. */
function upcomingDecision(
  twin: Twin,
  view: ReadView,
  id: string,
  nowSec: number,
): Decision<boolean> {
  const sub = subscriptionKind.fieldsAt(view, id);
  const at = sub === undefined ? undefined : upcomingAt(sub);
  if (sub === undefined || at === undefined || at > nowSec) return skip(false);
  const period = currentPeriod(sub);
  const marker = noticeId('invoice_upcoming', id, period.end);
  if (view.get('billing_notice', marker) !== undefined) return skip(false);
  const next = nextPeriod(sub, period);
  const customer = liveFields(view, customerKind, sub.customer, 'customer');
  const previewId = stripeIds.upcomingInvoice(twin.world.ids);
  const lines = linesFor(twin, view, null, sub, sub.items.data, next, false);
  const preview = {
    ...invoiceObject(twin, {
      id: previewId,
      customer,
      subscription: sub,
      lines,
      billingReason: 'upcoming',
      period,
      finalizesAt: null,
    }),
    created: period.end,
    next_payment_attempt: period.end + FINALIZE_AFTER_SEC,
  };
  return commit(
    {
      operation: 'invoice.upcoming',
      subjectType: 'upcoming_invoice',
      subjectId: previewId,
      fields: asJson(preview),
      projection: {
        creates: [
          {
            type: 'billing_notice',
            id: marker,
            fields: {
              kind: 'invoice_upcoming',
              subscription: id,
              at: period.end,
              preview: previewId,
            },
          },
        ],
      },
    },
    true,
  );
}

function decide(twin: Twin, view: ReadView, work: DueWork, nowSec: number): Decision<boolean> {
  switch (work.step) {
    case 'renew':
      return renewDecision(twin, view, work.id, nowSec);
    case 'trial_will_end':
      return trialNoticeDecision(view, work.id, nowSec);
    case 'invoice_upcoming':
      return upcomingDecision(twin, view, work.id, nowSec);
    case 'finalize':
      return finalizeDecision(twin, view, work.id, nowSec);
    case 'collect':
      return collectDecision(twin, view, work.id, nowSec);
    case 'expire_incomplete':
      return expireIncompleteDecision(view, work.id, nowSec);
    case 'expire_checkout':
      return expireDecision(twin, view, work.id, nowSec);
  }
}

const MAX_STEPS = 10_000;

/**
 * Does everything Stripe would have done by `now` (epoch ms; default and upper bound: the world
 * clock), earliest first, one commit per step. Returns the steps it wrote; none when nothing was due.
 */
export async function advanceBilling(
  twin: Twin,
  now: number = twin.world.clock.now(),
): Promise<DueWork[]> {
  requirePackTwin(twin, 'stripe');
  if (typeof now !== 'number' || !Number.isFinite(now) || now > twin.world.clock.now()) {
    throw new TwinError(
      'INVALID_ARGUMENT',
      `advanceBilling: now must be epoch ms no later than the world clock (${twin.world.clock.now()}); move the clock first`,
      { path: 'now' },
    );
  }
  const nowSec = Math.floor(now / 1000);
  const done: DueWork[] = [];
  for (let steps = 0; ; steps++) {
    if (steps >= MAX_STEPS)
      throw new TwinError(
        'INVALID_ARGUMENT',
        `advanceBilling ran ${MAX_STEPS} steps without running out of due work; is a subscription renewing with a zero-length period?`,
      );
    let progressed = false;
    for (const work of await twin.read((view) => dueWork(view, nowSec))) {
      const result = await twin.applyAtomic((view) => decide(twin, view, work, nowSec));
      if (!result.skipped) {
        done.push(work);
        progressed = true;
        break;
      }
    }
    if (!progressed) return done;
  }
}

/** When the next billing work falls due (epoch ms), or undefined when nothing is scheduled. */
export async function billingDueAt(twin: Twin): Promise<number | undefined> {
  const [first] = await twin.read((view) => dueWork(view));
  return first === undefined ? undefined : first.at * 1000;
}

/** What advanceWithBilling needs of a walk: its clock, and moving and settling it. */
export interface BillingWalk {
  readonly clock: { now(): number };
  advanceTo(time: number): Promise<void>;
  settle(): Promise<void>;
}

/**
 * Moves a walk forward by `ms`, stopping at each instant billing work falls due to do it there
 * (deliveries and their retries run in between, as the walk's clock passes them).
 */
export async function advanceWithBilling(
  walk: BillingWalk,
  twin: Twin,
  ms: number,
): Promise<DueWork[]> {
  if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0)
    throw new TwinError(
      'INVALID_ARGUMENT',
      `advanceWithBilling: ${String(ms)} is not a non-negative number of milliseconds`,
      { path: 'ms' },
    );
  const target = walk.clock.now() + ms;
  const done: DueWork[] = [];
  for (;;) {
    const due = await billingDueAt(twin);
    if (due === undefined || due > target) break;
    if (due > walk.clock.now()) await walk.advanceTo(due);
    const ran = await advanceBilling(twin);
    await walk.settle();
    // Due work that advanceBilling will not do would stop time here forever.
    if (ran.length === 0)
      throw new TwinError(
        'INVALID_ARGUMENT',
        `billing work due at ${new Date(due).toISOString()} could not run; the log holds an invoice or subscription the twin cannot advance`,
      );
    done.push(...ran);
  }
  if (target > walk.clock.now()) await walk.advanceTo(target);
  return done;
}
