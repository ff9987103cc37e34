// Every API call is kept as an `api_request` (req_…) beside the resource it changed: it is what
// an event's `request {id, idempotency_key}` points at, and how a repeated idempotency key gets
// the first call's result instead of a second write.
import {
  canonicalJson,
  sha256Hex,
  type JsonObject,
  type ProjectedResource,
  type ReadView,
  type Twin,
} from '../../src/index.js';
import { VendorError } from '../kit/errors.js';
import { stripeIds } from './ids.js';

export const API_REQUEST = 'api_request';
export const IDEMPOTENCY_INDEX = 'idempotency_key';

export interface RequestOptions {
  /** Stripe's Idempotency-Key: the same key with the same parameters returns the first result. */
  readonly idempotencyKey?: string;
}

export interface RequestCall {
  readonly method: 'POST' | 'DELETE';
  readonly path: string;
  readonly params: JsonObject;
}

/** The api_request resource a write creates alongside its subject. */
export function requestProjection(
  twin: Twin,
  call: RequestCall,
  options: RequestOptions,
  subject: { type: string; id: string },
): ProjectedResource {
  const id = stripeIds.request(twin.world.ids);
  return {
    type: API_REQUEST,
    id,
    fields: {
      id,
      method: call.method,
      path: call.path,
      idempotency_key: options.idempotencyKey ?? null,
      params_hash: sha256Hex(canonicalJson(call.params)),
      subject_type: subject.type,
      subject_id: subject.id,
    },
  };
}

/**
 * Inside decide: when the key was used before with the same method, path and parameters, the
 * subject it touched (to answer again without writing); with different ones, Stripe's refusal.
 */
export function priorRequest(
  view: ReadView,
  call: RequestCall,
  options: RequestOptions,
): { type: string; id: string } | undefined {
  const key = options.idempotencyKey;
  if (key === undefined) return undefined;
  if (typeof key !== 'string' || key === '' || key.length > 255) {
    throw new VendorError(
      'stripe',
      'invalid_input',
      'parameter_invalid',
      'idempotencyKey must be a non-empty string of at most 255 characters',
      { path: 'idempotencyKey' },
    );
  }
  const [prior] = view.lookup(API_REQUEST, IDEMPOTENCY_INDEX, key);
  if (prior === undefined) return undefined;
  const f = prior.fields;
  if (
    f.method !== call.method ||
    f.path !== call.path ||
    f.params_hash !== sha256Hex(canonicalJson(call.params))
  ) {
    throw new VendorError(
      'stripe',
      'conflict',
      'idempotency_key_in_use',
      `Keys for idempotent requests can only be used with the same parameters they were first used with; key "${key}" was used for ${String(f.method)} ${String(f.path)}`,
      {
        path: 'idempotencyKey',
      },
    );
  }
  return { type: String(f.subject_type), id: String(f.subject_id) };
}

/** What an event's `request` says about the write that caused it. */
export function eventRequest(
  projection: { creates?: readonly ProjectedResource[] } | undefined,
): JsonObject {
  const req = projection?.creates?.find((c) => c.type === API_REQUEST);
  return req === undefined
    ? { id: null, idempotency_key: null }
    : { id: req.id, idempotency_key: req.fields.idempotency_key ?? null };
}
