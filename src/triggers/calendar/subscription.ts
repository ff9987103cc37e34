// Calendar subscriptions as stored in the trigger twin: which trigger fires on which cron
// expression in which zone, with which catch-up policy, and where its cursor stands.
import { TwinError } from '../../errors.js';
import { DEFAULT_CATCH_UP, MAX_CATCH_UP_FIRES } from '../cron/shared-occurrence.js';
import { sha256Hex } from '../../log/canonical-json.js';
import { isPlainObject } from '../../log/json-value.js';
import type { Resource } from '../../state/resource.js';
import { checkScopeId, checkTenantId, checkTriggerId } from '../envelope.js';
import {
  validateCalendarSpec,
  validateCatchUpPolicy,
  type CatchUpPolicy,
  type DstFoldRule,
  type DstGapRule,
} from '../cron/occurrences.js';
import { recordKind } from '../../state/record-kind.js';

export const SUBSCRIPTION_TYPE = 'calendar_subscription';
export const OCCURRENCE_TYPE = 'calendar_occurrence';
export const BY_TENANT_INDEX = 'twinworld:tenant';
/** Occurrences decided to fire whose ingest has not been recorded yet, keyed by tenant. */
export const PENDING_INDEX = 'twinworld:pending';

export interface CalendarSubscription {
  readonly tenantId: string;
  /**
   * The calendar's kind, as the trigger guide writes it: only 'cron' exists. Optional and not
   * stored — every subscription is a cron calendar.
   */
  readonly kind?: 'cron';
  /** Default: the tenant id. */
  readonly scopeId?: string;
  readonly triggerId: string;
  /** 5 fields (minute first) or 6 (second first). */
  readonly cron: string;
  /** IANA zone, e.g. 'America/New_York', or 'UTC'. */
  readonly timezone: string;
  /** What to do with occurrences that fell due while nothing ticked; default { kind: 'latest' }. */
  readonly catchUp?: CatchUpPolicy;
  /** false keeps the subscription but fires nothing (its cursor still resets on configure). */
  readonly enabled?: boolean;
}

export interface SubscriptionFields {
  readonly tenantId: string;
  readonly scopeId: string;
  readonly triggerId: string;
  readonly cron: string;
  readonly timezone: string;
  readonly catchUp: CatchUpPolicy;
  readonly enabled: boolean;
  readonly revision: number;
  /** Nominal instant up to which occurrences are handled (ISO); the next is strictly after it. */
  readonly cursor: string;
  /** How many occurrences (fired or missed) were numbered so far. */
  readonly occurrences: number;
  readonly configuredAt: string;
  readonly lastTickAt: string | null;
  /** The tz database the occurrences were computed with (process.versions.tz). */
  readonly tzdb: string | null;
  readonly dstRules: { readonly gap: DstGapRule; readonly fold: DstFoldRule };
  /** Its next occurrence after the cursor, when a worker should tick it; null when disabled or none. */
  readonly dueAt?: string | null;
}

/** Subscription records, typed (src/state/record-kind.ts). */
export const subscriptionKind = recordKind<SubscriptionFields>({ type: SUBSCRIPTION_TYPE });

/** A calendar subscription's fields, typed: the one place one is read out of `Resource.fields`. */
export function subscriptionOf(resource: Resource): SubscriptionFields {
  return subscriptionKind.of(resource);
}

const KEYS = ['tenantId', 'scopeId', 'kind', 'triggerId', 'cron', 'timezone', 'catchUp', 'enabled'];
export const CALENDAR_KINDS = ['cron'] as const;

export function subscriptionId(tenantId: string, triggerId: string): string {
  return `cal_${sha256Hex(`${tenantId}\u0000${triggerId}`)}`;
}

export function occurrenceDedupeKey(triggerId: string, nominalAt: string): string {
  return `calendar:${triggerId}@${nominalAt}`;
}

function refuse(path: string, message: string): never {
  throw new TwinError('INVALID_CONFIG', message, { path });
}

/** A subscription as stored: `kind` is checked, not kept (there is one kind). */
export type ValidSubscription = Required<Omit<CalendarSubscription, 'kind'>>;

/** Checks a subscription; INVALID_CONFIG naming the field. Answers it with defaults filled in. */
export function validateSubscription(input: unknown): ValidSubscription {
  if (!isPlainObject(input)) {
    refuse(
      '',
      "a calendar subscription is an object such as { tenantId: 'acme', triggerId: 'nightly', cron: '0 3 * * *', timezone: 'Europe/London' }",
    );
  }
  for (const key of Object.keys(input)) {
    if (!KEYS.includes(key))
      refuse(key, `subscription has an unknown key "${key}"; allowed: ${KEYS.join(', ')}`);
  }
  if (input.kind !== undefined && !(CALENDAR_KINDS as readonly unknown[]).includes(input.kind)) {
    refuse(
      'kind',
      `kind ${JSON.stringify(input.kind)} is not a calendar kind; calendars are ${CALENDAR_KINDS.map((k) => `'${k}'`).join(', ')} (or omit kind)`,
    );
  }
  const tenantId = checkTenantId(input.tenantId, 'tenantId', 'INVALID_CONFIG');
  const scopeId =
    input.scopeId === undefined
      ? tenantId
      : checkScopeId(input.scopeId, 'scopeId', 'INVALID_CONFIG');
  const triggerId = checkTriggerId(input.triggerId, 'triggerId', 'INVALID_CONFIG');
  const { cron, timezone } = validateCalendarSpec({ cron: input.cron, timezone: input.timezone });
  let catchUp: CatchUpPolicy = DEFAULT_CATCH_UP;
  if (input.catchUp !== undefined) {
    try {
      catchUp = validateCatchUpPolicy(input.catchUp);
    } catch (error) {
      const e = error as TwinError;
      refuse(e.path === undefined ? 'catchUp' : `catchUp.${e.path}`, e.message);
    }
    if (catchUp.kind === 'all' && catchUp.max > MAX_CATCH_UP_FIRES) {
      refuse(
        'catchUp.max',
        `catchUp.max is ${catchUp.max}; at most ${MAX_CATCH_UP_FIRES} occurrences fire in one catch-up (the older ones are recorded as missed)`,
      );
    }
  }
  if (input.enabled !== undefined && typeof input.enabled !== 'boolean')
    refuse('enabled', 'enabled must be true or false');
  return { tenantId, scopeId, triggerId, cron, timezone, catchUp, enabled: input.enabled ?? true };
}
