// Small pieces every Stripe object shares: Unix-second timestamps from the world clock, the
// all-null address Stripe sends when none was collected, live-resource reads that refuse with
// Stripe's resource_missing, and the api_request a multi-object call hangs on each of its writes.
import type {
  JsonObject,
  ProjectedResource,
  ReadView,
  RecordKind,
  Twin,
  Write,
} from '../../src/index.js';
import { noSuch } from './errors.js';

/** Stripe timestamps are Unix seconds. */
export function unixNow(twin: Twin): number {
  return Math.floor(twin.world.clock.now() / 1000);
}

export function emptyAddress() {
  return { city: null, country: null, line1: null, line2: null, postal_code: null, state: null };
}

export function billingDetails(email: string | null = null, name: string | null = null) {
  return { address: emptyAddress(), email, name, phone: null, tax_id: null };
}

/** A live (not deleted) resource's fields, or Stripe's "No such …" refusal. */
export function liveFields<F extends object>(
  view: ReadView,
  kind: RecordKind<F>,
  id: string,
  path = 'id',
): F {
  const fields = kind.read(view, id);
  if (fields === undefined) throw noSuch(kind.type, id, path);
  return fields;
}

/**
 * One API call that changes several objects (confirm: a charge and the payment intent) is one
 * commit of several writes; every event they cause names the same request, so each write carries
 * the call's api_request (the same projected create, written once per write, is idempotent).
 */
export function withRequest(
  writes: readonly Write[],
  request: ProjectedResource | undefined,
): Write[] {
  if (request === undefined) return [...writes];
  return writes.map((w) => ({
    ...w,
    projection: { ...(w.projection ?? {}), creates: [...(w.projection?.creates ?? []), request] },
  }));
}

/**
 * A list embedded in an object (a subscription's `items`, an invoice's `lines`):
 * `{object: 'list', data, has_more, url}` — Stripe's OpenAPI spec and stripe-node's `ApiList` have
 * no `total_count` there (only search results count their matches).
 */
export function list<T>(data: T[], url: string) {
  return { object: 'list' as const, data, has_more: false, url };
}

/**
 * A Stripe object, built by its `*Object` function from JSON values, as the fields a write carries.
 * The cast stays: the objects are typed by those functions' return types, which TypeScript does not
 * see as JSON; record-kind reads (`kind.of`) cast the other way.
 */
export function asJson(value: object): JsonObject {
  return value as unknown as JsonObject;
}
