// Which tenant a row belongs to, and which tenant a section runs as. A resource whose fields carry a
// string `tenantId` (or whose stored `envelope` does: trigger records) belongs to that tenant, and a
// resource a tenant's write projects without naming one (a routine run) to the tenant of that write;
// a row that belonged to a tenant stays its own (section.ts). An entry and an index key belong to the
// tenant of their resource; everything else is shared. The database enforces it (row-level security
// on `twinworld.tenant`, see schema.ts and README.md "Tenants").
import type { JsonObject } from '../../log/json-value.js';
import type { Resource } from '../../state/resource.js';
import type { StoreScope } from '../port.js';
import { wellFormed } from './sql-text.js';
import { storeError } from './store-error.js';

/** The setting a kernel-wide session carries: every tenant's rows (head, hashing, export, replay). */
export const ALL_TENANTS = '*';

function tenantIdIn(fields: unknown): string | null {
  if (fields === null || typeof fields !== 'object' || Array.isArray(fields)) return null;
  const tenant = (fields as JsonObject).tenantId;
  return typeof tenant === 'string' && tenant.length > 0 ? tenant : null;
}

/** The tenant named by the fields: their `tenantId`, else their `envelope`'s (what a trigger record keeps). */
export function tenantOfFields(fields: Readonly<JsonObject> | undefined): string | null {
  return tenantIdIn(fields) ?? tenantIdIn(fields?.envelope);
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
