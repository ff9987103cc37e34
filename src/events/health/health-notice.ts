// What a vendor does outside webhooks when it disables an endpoint — Stripe and Slack email the
// account's owners — kept as a record beside the endpoint's health, so a test can find the notice
// its users would have got, and when, and why. Written in the commit that disables the endpoint.
import type { Write } from '../../log/write.js';
import { recordKind } from '../../state/record-kind.js';
import type { EndpointHealthFields } from './endpoint-health.js';

interface HealthNoticeFields {
  endpointKind: string;
  endpointId: string;
  /** What the notice says happened. */
  notice: 'endpoint_disabled';
  /** How the vendor sends it. */
  channel: 'email';
  reason: string;
  failingSince: string | null;
  /** The vendor's page that documents it. */
  source: string;
  sentAt: string;
}

const healthNoticeKind = recordKind<HealthNoticeFields, [string, string, string]>({
  type: 'endpoint_notice',
  id: (kind, id, at) => `${kind}:${id}:${at}`,
});

export function disabledNotice(
  health: EndpointHealthFields,
  source: string,
  nowIso: string,
): Write {
  return healthNoticeKind.write(
    'endpoint_notice.create',
    healthNoticeKind.id(health.endpointKind, health.endpointId, nowIso),
    {
      endpointKind: health.endpointKind,
      endpointId: health.endpointId,
      notice: 'endpoint_disabled',
      channel: 'email',
      reason: health.reason ?? '',
      failingSince: health.failingSince,
      source,
      sentAt: nowIso,
    },
    { actor: 'system' },
  );
}
