// Tenant-scoped authority: the value a host hands to every trigger operation it performs for a
// tenant (ingest, recovery, reads, calendar changes). A context names one tenant and what it may
// do there; an operation on another tenant's records, or one it may not do, is refused with
// TENANT_FORBIDDEN. Contexts come only from the factories below — a look-alike object is not
// one — so holding a context means a host decided, once, to act for that tenant. A network
// backend sets each transaction's tenant from `tenantOf(context)` (row-level security), so the
// database refuses what a bug in our code would let through.
import { describeValue, TwinError } from '../errors.js';
import { checkTenantId } from './envelope.js';

export type TenantPermission = 'ingest' | 'recover' | 'read' | 'configure';
export const TENANT_PERMISSIONS: readonly TenantPermission[] = [
  'ingest',
  'recover',
  'read',
  'configure',
];

/** Acting for one tenant, allowed only what `may` lists. */
export interface TenantContext {
  readonly kind: 'tenant';
  readonly tenantId: string;
  readonly may: readonly TenantPermission[];
}

/** Host code acting for every tenant (startup recovery over all tenants, the CLI, tests). */
export interface SystemContext {
  readonly kind: 'system';
}

export type TriggerContext = TenantContext | SystemContext;

const issued = new WeakSet<object>();

function issue<T extends TriggerContext>(context: T): T {
  Object.freeze(context);
  issued.add(context);
  return context;
}

/**
 * The one way to act for a tenant: `tenantContext({ tenantId: 'acme', may: ['ingest', 'read'] })`.
 * Refuses (INVALID_ARGUMENT) an unusable tenant id, an empty `may` or an unknown permission.
 */
export function tenantContext(input: {
  readonly tenantId: string;
  readonly may: readonly TenantPermission[];
}): TenantContext {
  if (input === null || typeof input !== 'object') {
    throw new TwinError(
      'INVALID_ARGUMENT',
      "tenantContext({tenantId, may}) needs an object, e.g. { tenantId: 'acme', may: ['ingest'] }",
      { path: 'context' },
    );
  }
  const tenantId = checkTenantId(input.tenantId, 'context.tenantId', 'INVALID_ARGUMENT');
  const may: unknown = input.may;
  if (!Array.isArray(may) || may.length === 0) {
    throw new TwinError(
      'INVALID_ARGUMENT',
      `context.may must list what the context may do for tenant "${tenantId}": some of ${TENANT_PERMISSIONS.join(', ')}`,
      { path: 'context.may' },
    );
  }
  may.forEach((p: unknown, i: number) => {
    if (!TENANT_PERMISSIONS.includes(p as TenantPermission)) {
      throw new TwinError(
        'INVALID_ARGUMENT',
        `context.may[${i}] ${JSON.stringify(p)} is not a permission; use ${TENANT_PERMISSIONS.join(', ')}`,
        { path: `context.may[${i}]` },
      );
    }
  });
  const unique = TENANT_PERMISSIONS.filter((p) => (may as unknown[]).includes(p));
  return issue({ kind: 'tenant', tenantId, may: Object.freeze(unique) });
}

/** Host code acting for every tenant; what an operation called without a context acts as. */
export const SYSTEM_CONTEXT: SystemContext = issue({ kind: 'system' });

export function isTriggerContext(value: unknown): value is TriggerContext {
  return typeof value === 'object' && value !== null && issued.has(value);
}

/** The tenant a transaction acting under this context is bound to; null for the system context. */
export function tenantOf(context: TriggerContext): string | null {
  // A look-alike ({kind: 'tenant', tenantId}) would be read as a context it was never issued as,
  // and no context at all was a TypeError.
  if (!isTriggerContext(context))
    throw new TwinError(
      'INVALID_ARGUMENT',
      `tenantOf(context): context must be made by tenantContext({tenantId, may}) or be SYSTEM_CONTEXT, got ${describeValue(context)}`,
      { path: 'context' },
    );
  return context.kind === 'tenant' ? context.tenantId : null;
}

/** An optional context argument: absent is the system context; anything not made by a factory is refused. */
export function contextArgument(value: unknown, path = 'context'): TriggerContext {
  if (value === undefined) return SYSTEM_CONTEXT;
  if (isTriggerContext(value)) return value;
  throw new TwinError(
    'INVALID_ARGUMENT',
    `${path} must be made by tenantContext({tenantId, may}) or be SYSTEM_CONTEXT; a plain object carries no authority`,
    { path },
  );
}

/**
 * Refuses (TENANT_FORBIDDEN) unless the context may do `permission` for `tenantId`. `what` names
 * the operation in the message, e.g. "recover records".
 */
export function authorize(
  context: TriggerContext,
  tenantId: string,
  permission: TenantPermission,
  what: string,
): void {
  if (context.kind === 'system') return;
  if (context.tenantId !== tenantId) {
    throw new TwinError(
      'TENANT_FORBIDDEN',
      `a context for tenant "${context.tenantId}" cannot ${what} of tenant "${tenantId}"; act for "${tenantId}" with tenantContext({ tenantId: "${tenantId}", may: ["${permission}"] })`,
      {
        path: 'context.tenantId',
        details: { contextTenant: context.tenantId, tenantId, permission },
      },
    );
  }
  if (!context.may.includes(permission)) {
    throw new TwinError(
      'TENANT_FORBIDDEN',
      `the context for tenant "${tenantId}" may ${context.may.join(', ')} but not ${permission}, which is needed to ${what}; create it with "${permission}" in may`,
      {
        path: 'context.may',
        details: { contextTenant: context.tenantId, tenantId, permission },
      },
    );
  }
}
