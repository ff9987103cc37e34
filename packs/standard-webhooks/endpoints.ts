// Endpoints of a Standard Webhooks sender (Svix's shape: url, filterTypes, disabled), and secret
// rotation: the new secret signs at once, the old one keeps signing for a grace period, so every
// packet carries both `v1,` signatures until the old one expires.
import { commit, isTwinError, type JsonObject, type ReadView, type Twin } from '../../src/index.js';
import { decodeStandardWebhooksSecret } from '../../src/events/signing/index.js';
import { VendorError } from '../kit/errors.js';
import { checker } from '../kit/input.js';
import { secretRefFor, withStoredSecret } from '../kit/twin-checks.js';
import { swIds } from './ids.js';
import { eventTypesOf, owningPack } from './owning-pack.js';
import { recordKind } from '../../src/index.js';

export type SwEndpoint = {
  id: string;
  url: string;
  description: string;
  /** null = every event type. */
  filterTypes: string[] | null;
  disabled: boolean;
  version: number;
  metadata: Record<string, string>;
  /** Svix's per-endpoint limit in messages per second; absent or null means no limit. */
  throttleRate?: number | null;
  createdAt: string;
  updatedAt: string;
  // Twin bookkeeping read by the kernel's fan-out:
  secretRef: string;
  eventFilter: string[];
};

/** The endpoint records of the twin, typed (src/state/record-kind.ts). */
export const swEndpointKind = recordKind<SwEndpoint>({ type: 'endpoint' });

export interface CreateEndpointInput {
  url: string;
  description?: string;
  filterTypes?: string[] | null;
  /** whsec_ + base64 (24–64 bytes); generated when omitted. */
  secret?: string;
  metadata?: Record<string, string>;
  /** Messages per second this endpoint takes at most (Svix's `throttleRate`). */
  throttleRate?: number | null;
}

/** Svix's default grace period for the old secret after a rotation. */
export const DEFAULT_ROTATION_GRACE_MS = 24 * 3600_000;

const check = checker('standard-webhooks');

export function checkSecret(secret: unknown, path: string): string {
  const value = check.secret(secret, path);
  try {
    const key = decodeStandardWebhooksSecret(value, path);
    if (key.length < 24 || key.length > 64)
      throw new VendorError(
        'standard-webhooks',
        'invalid_input',
        'invalid_secret',
        `${path} must decode to 24–64 bytes (the value is not shown)`,
        { path },
      );
  } catch (error) {
    if (isTwinError(error) && !(error instanceof VendorError))
      throw new VendorError(
        'standard-webhooks',
        'invalid_input',
        'invalid_secret',
        error.message.replace(/^standard-webhooks: /, ''),
        { path },
      );
    throw error;
  }
  return value;
}

function filterTypes(
  twin: Twin,
  value: unknown,
): { filterTypes: string[] | null; eventFilter: string[] } {
  if (value === undefined || value === null) return { filterTypes: null, eventFilter: ['*'] };
  const types = check.stringArray(value, 'filterTypes');
  const known = eventTypesOf(owningPack(twin));
  for (const t of types) {
    if (!known.includes(t))
      throw new VendorError(
        'standard-webhooks',
        'invalid_input',
        'unknown_event_type',
        `filterTypes holds "${t}", which this sender does not declare; known: ${known.join(', ')}`,
        { path: 'filterTypes' },
      );
  }
  if (types.length === 0)
    throw new VendorError(
      'standard-webhooks',
      'invalid_input',
      'invalid_filter',
      'filterTypes must be null (every type) or name at least one type',
      { path: 'filterTypes' },
    );
  return { filterTypes: types, eventFilter: types };
}

function throttleRate(value: unknown): number | null {
  if (value === null) return null;
  if (!Number.isInteger(value) || (value as number) < 1 || (value as number) > 100_000)
    throw new VendorError(
      'standard-webhooks',
      'invalid_input',
      'invalid_throttle_rate',
      'throttleRate must be a whole number of messages per second from 1 to 100000, or null for no limit',
      { path: 'throttleRate' },
    );
  return value as number;
}

function isoNow(twin: Twin): string {
  return new Date(twin.world.clock.now()).toISOString();
}

/** Creates the endpoint; answers its signing secret alongside (kept in world.secrets only). */
export async function createEndpoint(
  twin: Twin,
  input: CreateEndpointInput,
): Promise<SwEndpoint & { secret: string }> {
  owningPack(twin);
  const url = check.url(input?.url, 'url');
  const filters = filterTypes(twin, input.filterTypes);
  const secret =
    input.secret === undefined ? swIds.secret(twin.world.ids) : checkSecret(input.secret, 'secret');
  const id = swIds.endpoint(twin.world.ids);
  const now = isoNow(twin);
  const endpoint: SwEndpoint = {
    id,
    url,
    description: input.description ?? '',
    ...filters,
    disabled: false,
    version: 1,
    metadata: input.metadata ?? {},
    ...(input.throttleRate === undefined ? {} : { throttleRate: throttleRate(input.throttleRate) }),
    createdAt: now,
    updatedAt: now,
    secretRef: secretRefFor(twin, id),
    eventFilter: filters.eventFilter,
  };
  await withStoredSecret(twin, endpoint.secretRef, secret, () =>
    twin.applyWrite({
      operation: 'endpoint.create',
      subjectType: 'endpoint',
      subjectId: id,
      fields: endpoint,
    }),
  );
  return { ...endpoint, secret };
}

function current(view: ReadView, id: string): SwEndpoint {
  const r = view.get('endpoint', id);
  if (r === undefined || r.deleted)
    throw new VendorError('standard-webhooks', 'not_found', 'not_found', `no endpoint ${id}`, {
      path: 'endpoint',
    });
  return swEndpointKind.of(r);
}

export async function updateEndpoint(
  twin: Twin,
  id: string,
  input: {
    url?: string;
    disabled?: boolean;
    filterTypes?: string[] | null;
    description?: string;
    throttleRate?: number | null;
  },
): Promise<SwEndpoint> {
  owningPack(twin);
  const fields: JsonObject = {};
  if (input.url !== undefined) fields.url = check.url(input.url, 'url');
  if (input.disabled !== undefined) fields.disabled = check.boolean(input.disabled, 'disabled');
  if (input.description !== undefined)
    fields.description = check.optionalString(input.description, 'description') ?? '';
  if (input.throttleRate !== undefined) fields.throttleRate = throttleRate(input.throttleRate);
  if ('filterTypes' in input) Object.assign(fields, filterTypes(twin, input.filterTypes));
  fields.updatedAt = isoNow(twin);
  const done = await twin.applyAtomic((view) => {
    const before = current(view, id);
    return commit(
      { operation: 'endpoint.update', subjectType: 'endpoint', subjectId: id, fields },
      { ...before, ...fields } as SwEndpoint,
    );
  });
  return done.result;
}

/**
 * Rotates the endpoint's secret: the new one is current at once and the old one stays active for
 * `graceMs`; the log records that a rotation happened, never either secret.
 */
export async function rotateEndpointSecret(
  twin: Twin,
  id: string,
  input: { secret?: string; graceMs?: number } = {},
): Promise<{ secret: string; oldSecretExpiresAt: string }> {
  owningPack(twin);
  const endpoint = await twin.read((view) => current(view, id));
  const secret =
    input.secret === undefined ? swIds.secret(twin.world.ids) : checkSecret(input.secret, 'secret');
  const graceMs = input.graceMs ?? DEFAULT_ROTATION_GRACE_MS;
  if (!Number.isFinite(graceMs) || graceMs < 0 || graceMs > 7 * 24 * 3600_000) {
    throw new VendorError(
      'standard-webhooks',
      'invalid_input',
      'invalid_grace',
      'graceMs must be between 0 and 7 days',
      { path: 'graceMs' },
    );
  }
  const now = twin.world.clock.now();
  await twin.world.secrets.rotate(endpoint.secretRef, secret, now, graceMs);
  await twin.applyWrite({
    operation: 'endpoint.rotate_secret',
    subjectType: 'endpoint',
    subjectId: id,
    fields: { updatedAt: new Date(now).toISOString() },
  });
  return { secret, oldSecretExpiresAt: new Date(now + graceMs).toISOString() };
}

/** Deletes the endpoint (Svix's DELETE …/endpoint/{id}) and its secrets. */
export async function deleteEndpoint(twin: Twin, id: string): Promise<void> {
  owningPack(twin);
  let ref = '';
  await twin.applyAtomic((view) => {
    ref = current(view, id).secretRef;
    return commit({
      operation: 'endpoint.delete',
      subjectType: 'endpoint',
      subjectId: id,
      delete: true,
    });
  });
  await twin.world.secrets.delete(ref);
}
