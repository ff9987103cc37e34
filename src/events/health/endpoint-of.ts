// The endpoint a delivery goes to, as health sees it: its kind's declaration, its resource, and
// the rate that holds for it (the endpoint's own override, else the pack's).
import type { ReadView } from '../../state/read-view.js';
import type { Resource } from '../../state/resource.js';
import type { EndpointKind, EventsDeclaration } from '../declaration.js';
import type { DeliveryFields } from '../delivery-records.js';
import type { HealthPolicy } from './health-policy.js';

export interface HealthTarget {
  readonly kind: EndpointKind;
  readonly endpoint: Resource;
  readonly policy: HealthPolicy;
}

export function healthTarget(
  view: Pick<ReadView, 'get'>,
  decl: EventsDeclaration,
  d: Pick<DeliveryFields, 'endpointKind' | 'endpointId'>,
): HealthTarget | undefined {
  const kind = decl.endpoints.find((k) => k.type === d.endpointKind);
  const endpoint = view.get(d.endpointKind, d.endpointId);
  if (kind === undefined || endpoint === undefined || endpoint.deleted) return undefined;
  const declared = decl.health;
  const own = kind.rateField === undefined ? undefined : endpoint.fields[kind.rateField];
  const rate = typeof own === 'number' && own > 0 ? own : declared?.ratePerSecond;
  if (declared === undefined && rate === undefined) return undefined;
  const policy: HealthPolicy = {
    source: declared?.source ?? 'endpoint',
    ...declared,
    ...(rate === undefined ? {} : { ratePerSecond: rate }),
  };
  return { kind, endpoint, policy };
}
