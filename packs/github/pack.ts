// The GitHub pack as data: payloads with action/repository/organization/sender, hooks at two
// endpoint kinds, X-Hub-Signature-256 and GitHub's delivery headers, and no automatic retries —
// GitHub never retries; a redelivery is an operator's act and keeps X-GitHub-Delivery.
import type { EventsDeclaration } from '../../src/index.js';
import type { VendorPack } from '../kit/vendor-pack.js';
import { LOGIN_INDEX } from './accounts.js';
import { GITHUB_EVENT_RULES } from './event-types.js';
import { updateHook, type HookKind } from './hooks.js';
import { githubIdShapes } from './ids.js';
import { githubHeaders, payloadValues } from './payload.js';
import { FULL_NAME_INDEX } from './repositories.js';
import { scenarios } from './scenarios.js';

const hookKind = (type: HookKind, field: 'repository_id' | 'organization_id', bodyPath: string) => ({
  type,
  urlField: 'delivery_url',
  secretRefField: 'secret_ref',
  eventsField: 'event_filter',
  enabledWhen: { field: 'active', value: true },
  match: [{ field, bodyPath }],
});

export const githubEvents: EventsDeclaration = {
  rules: GITHUB_EVENT_RULES,
  envelope: {
    action: '$action',
    number: '$number',
    issue: '$issue',
    pull_request: '$pullRequest',
    changes: '$changes',
    repository: '$repository',
    organization: '$organization',
    sender: '$sender',
  },
  values: payloadValues,
  eventIdPrefix: 'uuid',
  messageIdPrefix: 'uuid',
  endpoints: [hookKind('repository_hook', 'repository_id', 'repository.id'), hookKind('organization_hook', 'organization_id', 'organization.id')],
  signing: 'github',
  recordType: 'hook_delivery',
  headers: ({ record }) => githubHeaders(record),
  // GitHub gives a receiver 10 seconds to answer.
  timeoutMs: 10_000,
};

export const githubPack: VendorPack = {
  name: 'github',
  description: 'GitHub: repositories, issues and pull requests, with repository and organization webhooks',
  indexes: [
    { type: 'user', name: LOGIN_INDEX, field: 'login' },
    { type: 'organization', name: LOGIN_INDEX, field: 'login' },
    { type: 'repository', name: FULL_NAME_INDEX, field: 'full_name' },
  ],
  events: githubEvents,
  scenarios,
  idShapes: githubIdShapes,
  retireEndpoint: (twin, kind, id) => updateHook(twin, kind as HookKind, Number(id), { active: false }),
};
