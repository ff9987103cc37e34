// The GitHub pack as data: whole payloads (payload.ts), hooks at two levels plus GitHub Apps'
// webhooks, X-Hub-Signature-256 and X-Hub-Signature with GitHub's delivery headers, and no
// automatic retries — GitHub never retries; a redelivery is an operator's act and keeps
// X-GitHub-Delivery.
import { GITHUB_HEALTH } from './health.js';
import type { EndpointKind, EventsDeclaration } from '../../src/index.js';
import type { VendorPack } from '../kit/vendor-pack.js';
import { LOGIN_INDEX } from './accounts.js';
import { githubCli } from './cli.js';
import { setAppWebhookActive, SLUG_INDEX } from './apps.js';
import { HEAD_INDEX } from './branches.js';
import { SUITE_INDEX } from './checks.js';
import { COMMIT_INDEXES } from './commit-indexes.js';
import { GITHUB_EVENT_RULES } from './event-types.js';
import { updateHook, type HookKind } from './hooks.js';
import { githubIdShapes } from './ids.js';
import { githubHeaders, payloadValues } from './payload.js';
import { REACTION_SUBJECT_INDEX } from './reaction-rollup.js';
import { SHA_INDEX } from './refs.js';
import { FULL_NAME_INDEX } from './repositories.js';
import { scenarioKeys, scenarios } from './scenarios.js';

const hook = (type: HookKind, match: EndpointKind['match']): EndpointKind => ({
  type,
  urlField: 'delivery_url',
  secretRefField: 'secret_ref',
  // A hook made without a secret: GitHub sends its packets with no signature headers.
  unsignedWithoutSecret: true,
  eventsField: 'event_filter',
  enabledWhen: { field: 'active', value: true },
  match,
});

// Each hook type is declared twice: once for every event of its repository or organization (a
// ping's hook_id fails the null ping_guard), once for a ping to that very hook. Each match is one
// group whose fields must all hold (`match` takes any one of its groups).
const repositoryHooks = hook('repository_hook', [
  [
    { field: 'repository_id', bodyPath: 'repository.id' },
    { field: 'ping_guard', bodyPath: 'hook_id' },
  ],
]);
const organizationHooks = hook('organization_hook', [
  [
    { field: 'organization_id', bodyPath: 'organization.id' },
    { field: 'ping_guard', bodyPath: 'hook_id' },
  ],
]);
const pinged = (type: HookKind) =>
  hook(type, [
    [
      { field: 'id', bodyPath: 'hook_id' },
      { field: 'type', bodyPath: 'hook.type' },
    ],
  ]);

export const githubEvents: EventsDeclaration = {
  rules: GITHUB_EVENT_RULES,
  envelope: '$payload',
  values: payloadValues,
  eventIdPrefix: 'uuid',
  messageIdPrefix: 'uuid',
  endpoints: [
    repositoryHooks,
    pinged('repository_hook'),
    organizationHooks,
    pinged('organization_hook'),
    // A GitHub App's webhook takes its own installations' events — installation and
    // installation_repositories, which GitHub sends every app whatever it subscribes to; the
    // twin renders no other event for an app, so no filter field applies (`app_events` is
    // never written, and an absent filter takes every type).
    {
      type: 'app',
      urlField: 'delivery_url',
      secretRefField: 'secret_ref',
      eventsField: 'app_events',
      enabledWhen: { field: 'active', value: true },
      match: [{ field: 'id', bodyPath: 'installation.app_id' }],
    },
  ],
  signing: 'github',
  health: GITHUB_HEALTH,
  recordType: 'hook_delivery',
  headers: ({ record }) => githubHeaders(record),
  // GitHub gives a receiver 10 seconds to answer.
  timeoutMs: 10_000,
};

export const githubPack: VendorPack = {
  name: 'github',
  description:
    'GitHub: repositories, pushes, issues, pull requests, checks, workflow runs, releases, stars and app installations, with repository, organization and app webhooks',
  indexes: [
    // GitHub matches logins and repository names whatever their case.
    { type: 'user', name: LOGIN_INDEX, field: 'login', fold: 'lower' },
    { type: 'organization', name: LOGIN_INDEX, field: 'login', fold: 'lower' },
    { type: 'repository', name: FULL_NAME_INDEX, field: 'full_name', fold: 'lower' },
    { type: 'pull_request', name: HEAD_INDEX, field: 'head_key' },
    { type: 'check_run', name: SUITE_INDEX, field: 'check_suite_id' },
    { type: 'branch', name: SHA_INDEX, field: 'sha' },
    { type: 'app', name: SLUG_INDEX, field: 'slug' },
    { type: 'reaction', name: REACTION_SUBJECT_INDEX, field: 'subject' },
    // Which commits a repository holds, by key (known-commits.ts).
    ...COMMIT_INDEXES,
  ],
  events: githubEvents,
  scenarios,
  scenarioKeys,
  cli: githubCli,
  idShapes: githubIdShapes,
  retireEndpoint: async (twin, kind, id) => {
    if (kind === 'app') await setAppWebhookActive(twin, Number(id), false);
    else await updateHook(twin, kind as HookKind, Number(id), { active: false });
  },
};
