// Event declarations: a pack says, as data plus a few small hooks, which writes produce which
// vendor events, how the envelope looks, where endpoints are kept, how packets are signed and
// retried. The kernel does the rest (fan-out, records, dispatch).
import { TwinError } from '../errors.js';
import type { JsonObject, JsonValue } from '../log/json-value.js';
import type { Entry } from '../log/write.js';
import type { ReadView } from '../state/read-view.js';
import type { Resource } from '../state/resource.js';
import { validateEndpointMatches, type EndpointMatch } from './endpoint-match.js';
import { isSchemeName, type SchemeName } from './signing/index.js';
import { validateRetryPolicy, type RetryPolicy } from './retry.js';
import { validateHealthPolicy, type HealthPolicy } from './health/health-policy.js';

/** What a pack hook sees while an event is rendered, inside the write's commit. */
export interface RenderContext {
  readonly entry: Entry;
  /** The subject after the write (a tombstone after a delete). */
  readonly subject: Resource | undefined;
  /** The subject's fields before the write, if it existed. */
  readonly previous: Readonly<JsonObject> | undefined;
  readonly view: ReadView;
  readonly eventType: string;
  readonly eventId: string;
  /** World clock, epoch ms, when the write committed. */
  readonly now: number;
}

export interface EventRule {
  /** The write operation that produces the events, e.g. "customer.update". */
  readonly operation: string;
  /** Event types this write produces (one write may produce several). */
  readonly types: readonly string[];
  /** Optional: keep only some of `types` for this write (Slack: app_mention only when the app is mentioned). */
  readonly when?: (eventType: string, ctx: Omit<RenderContext, 'eventType' | 'eventId'>) => boolean;
  /**
   * Only endpoints of these kinds take this rule's events; every kind when absent. Svix's
   * operational events go to the operational webhook endpoints only, never to an app's own.
   */
  readonly endpointKinds?: readonly string[];
}

export interface EndpointKind {
  /** Resource type the endpoints are kept as, e.g. "webhook_endpoint". */
  readonly type: string;
  readonly urlField: string;
  /** Field holding the secret *reference*: secrets themselves live in the world's secret store, never in the log. */
  readonly secretRefField: string;
  /**
   * Whether an endpoint whose `secretRefField` is null takes its packets unsigned (a GitHub hook
   * made without a secret). Without it a null reference falls back to the endpoint's id, and an
   * attempt with no stored secret fails without a request: the kernel signs every other packet.
   */
  readonly unsignedWithoutSecret?: boolean;
  /** Field holding the event filter: an array of "*", "family.*" or exact types. */
  readonly eventsField: string;
  /** The endpoint takes deliveries only when this field equals `value` (e.g. status = "enabled"). */
  readonly enabledWhen?: { readonly field: string; readonly value: JsonValue };
  /**
   * What the kernel writes into `enabledWhen.field` when health disables the endpoint (Stripe's
   * status "disabled"); a boolean field is simply inverted.
   */
  readonly disabledValue?: JsonValue;
  /** Field holding a per-endpoint override of the pack's rate limit (Svix's `throttleRate`). */
  readonly rateField?: string;
  /**
   * The endpoint takes an event only when one of these matches holds (any of them): a match is
   * one {field, bodyPath} or an array of them that must all hold; a condition holds when the
   * endpoint's field equals the value at `bodyPath` in the rendered event or, being a list,
   * holds it (e.g. a repo hook's repository, an org hook listing several).
   */
  readonly match?: readonly EndpointMatch[];
}

export interface HeaderContext {
  readonly record: Readonly<JsonObject>;
  readonly attempt: number;
  /** Outcome of the attempt before this one, for vendors that say why they retry (Slack). */
  readonly previousOutcome:
    { readonly state: string; readonly status: number | null; readonly reason: string } | undefined;
  readonly timestampSec: number;
}

export interface EventsDeclaration {
  readonly rules: readonly EventRule[];
  /**
   * The envelope, as JSON in which string values starting with `$` are filled in: kernel values
   * `$id`, `$type`, `$created` (unix s), `$createdIso`, `$object` (subject fields), `$previous`
   * (changed fields' old values, absent when nothing changed), `$subjectId`, `$seq`; and whatever
   * `values` returns. A `$name` that resolves to undefined drops its key.
   */
  readonly envelope: JsonValue;
  readonly values?: (ctx: RenderContext) => Record<string, JsonValue | undefined>;
  /** Prefix for event ids, e.g. "evt" → evt_…; "uuid" for GUIDs; "Ev" → Ev…  */
  readonly eventIdPrefix: string;
  /** Stable per-delivery message id: "uuid" (GitHub's X-GitHub-Delivery) or a prefix such as "msg". */
  readonly messageIdPrefix?: string;
  /**
   * One message id for every delivery of an event instead of one per delivery record (Standard
   * Webhooks: `webhook-id` is the message's id, the same on every endpoint and attempt).
   */
  readonly messageId?: (ctx: RenderContext) => string;
  /** The request body from the rendered envelope; JSON when omitted (Slack's interactivity is form-encoded). */
  readonly encodeBody?: (rendered: JsonValue | undefined, ctx: RenderContext) => string;
  readonly endpoints: readonly EndpointKind[];
  readonly signing: SchemeName;
  /** Resource type of delivery records; attempts are kept as `${recordType}_attempt`. */
  readonly recordType: string;
  readonly retry?: RetryPolicy;
  /** Endpoint health as the vendor runs it: rate limit, breaker, automatic disabling. */
  readonly health?: HealthPolicy;
  /** Vendor headers besides the signature (X-GitHub-Event, User-Agent, …). */
  readonly headers?: (ctx: HeaderContext) => Record<string, string>;
  /** Per-attempt request timeout. */
  readonly timeoutMs?: number;
}

function bad(path: string, message: string): never {
  throw new TwinError('INVALID_CONFIG', message, { path });
}

function nonEmpty(value: unknown, path: string): string {
  if (typeof value !== 'string' || value === '') bad(path, `${path} must be a non-empty string`);
  return value;
}

export function validateEventsDeclaration(
  decl: EventsDeclaration,
  path = 'events',
): EventsDeclaration {
  if (decl === null || typeof decl !== 'object') bad(path, `${path} must be an object`);
  if (!Array.isArray(decl.rules) || decl.rules.length === 0)
    bad(`${path}.rules`, `${path}.rules must list at least one {operation, types}`);
  decl.rules.forEach((rule, i) => {
    nonEmpty(rule.operation, `${path}.rules[${i}].operation`);
    if (!Array.isArray(rule.types) || rule.types.length === 0)
      bad(
        `${path}.rules[${i}].types`,
        `${path}.rules[${i}].types must name at least one event type`,
      );
    (rule.types as readonly string[]).forEach((t: string, j: number) =>
      nonEmpty(t, `${path}.rules[${i}].types[${j}]`),
    );
    rule.endpointKinds?.forEach((k: string, j: number) => {
      if (!Array.isArray(decl.endpoints) || !decl.endpoints.some((e) => e.type === k))
        bad(
          `${path}.rules[${i}].endpointKinds[${j}]`,
          `${path}.rules[${i}].endpointKinds[${j}] "${k}" is not one of the declared endpoint kinds`,
        );
    });
  });
  nonEmpty(decl.eventIdPrefix, `${path}.eventIdPrefix`);
  nonEmpty(decl.recordType, `${path}.recordType`);
  if (!isSchemeName(decl.signing))
    bad(
      `${path}.signing`,
      `${path}.signing "${String(decl.signing)}" is not a scheme; use stripe, github, slack, standard-webhooks or hmac-sha256`,
    );
  if (!Array.isArray(decl.endpoints) || decl.endpoints.length === 0)
    bad(`${path}.endpoints`, `${path}.endpoints must list at least one endpoint kind`);
  decl.endpoints.forEach((kind, i) => {
    for (const key of ['type', 'urlField', 'secretRefField', 'eventsField'] as const)
      nonEmpty(kind[key], `${path}.endpoints[${i}].${key}`);
    validateEndpointMatches(kind.match, `${path}.endpoints[${i}].match`);
  });
  if (decl.retry !== undefined) validateRetryPolicy(decl.retry, `${path}.retry`);
  if (decl.health !== undefined) {
    validateHealthPolicy(decl.health, `${path}.health`);
    if (decl.health.disable !== undefined)
      decl.endpoints.forEach((kind, i) => {
        const at = `${path}.endpoints[${i}]`;
        if (kind.enabledWhen === undefined)
          bad(
            `${at}.enabledWhen`,
            `${at}.enabledWhen is needed: health.disable must be able to disable it`,
          );
        if (typeof kind.enabledWhen.value !== 'boolean' && kind.disabledValue === undefined)
          bad(
            `${at}.disabledValue`,
            `${at}.disabledValue must say what a disabled endpoint holds in ${kind.enabledWhen.field}`,
          );
      });
  }
  return decl;
}
