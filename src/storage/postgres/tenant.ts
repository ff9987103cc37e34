// Which tenant a row belongs to, and which tenant a section runs as. A resource whose fields carry a
// string `tenantId` belongs to that tenant; an entry belongs to the tenant of its subject; everything
// else is shared. The database enforces it (row-level security on `twinworld.tenant`, see schema.ts).
import type { JsonObject } from '../../log/json-value.js';
import type { Resource } from '../../state/resource.js';
import type { StoreScope } from '../port.js';
import { wellFormed } from './sql-text.js';
import { storeError } from './store-error.js';

/** The setting a kernel-wide session carries: every tenant's rows (head, hashing, export, replay). */
export const ALL_TENANTS = '*';

export function tenantOfFields(fields: Readonly<JsonObject> | undefined): string | null {
  const tenant = fields?.tenantId;
  return typeof tenant === 'string' && tenant.length > 0 ? tenant : null;
}

export function tenantOf(resource: Resource): string | null {
  return tenantOfFields(resource.fields);
}

/** The scope's tenant, checked; undefined for a kernel-wide section. */
export function scopeTenant(scope: StoreScope | undefined): string | undefined {
  if (scope === undefined || scope.tenant === undefined) return undefined;
  const tenant: unknown = scope.tenant;
  if (
    typeof tenant !== 'string' ||
    tenant.length === 0 ||
    tenant.length > 256 ||
    tenant === ALL_TENANTS ||
    tenant.includes('\u0000') ||
    !wellFormed(tenant)
  ) {
    throw storeError(
      'INVALID_ARGUMENT',
      `scope.tenant must be a tenant id (a non-empty string of at most 256 characters, not "${ALL_TENANTS}"), or omitted for a kernel-wide section`,
      { path: 'scope.tenant' },
    );
  }
  return tenant;
}
