// `twinworld endpoints … github` and `twinworld trigger github …`: hooks as GitHub makes them —
// on a repository (`--repo owner/name`) or an organization (`--org login`) that exists; the
// twin never invents the repository a hook is added to. Creating a hook sends it a `ping`.
// Triggers act on the repository `--data` names ({"repository": "owner/name"}) or on the sample
// repository octo-org/hello-world, which the first trigger makes (with octo-org and octocat), as
// `stripe trigger` makes the fixtures it needs.
import type { JsonObject, ReadView, Twin } from '../../src/index.js';
import {
  option,
  requestedEvents,
  trigger,
  type EndpointRequest,
  type EndpointSummary,
  type PackCli,
} from '../kit/cli.js';
import { hexToken } from '../kit/ids.js';
import { LOGIN_INDEX } from './accounts.js';
import { notFound, validationFailed } from './errors.js';
import {
  createOrganizationHook,
  createRepositoryHook,
  deleteHook,
  pingHook,
  updateHook,
  type GitHubHook,
  type HookKind,
} from './hooks.js';
import {
  ensureSampleRepository,
  ensureSampleUser,
  recipes,
  SAMPLE_REPO,
  type Recipe,
} from './recipes.js';
import { FULL_NAME_INDEX, type GitHubRepository } from './repositories.js';
import { repositoryKind } from './repositories.js';
import { checkEvents, hookKinds } from './hooks.js';

const HOW_TO_MAKE = `\`twinworld trigger github ping\` makes the twin's sample repository ${SAMPLE_REPO} (with the organization octo-org and the user octocat) the first time any GitHub trigger runs; other repositories are made with createRepository (packs/github)`;

function scopeOf(view: ReadView, hook: GitHubHook): string {
  if (hook.repository_id !== undefined)
    return String(view.get('repository', String(hook.repository_id))?.fields.full_name ?? '');
  return String(view.get('organization', String(hook.organization_id))?.fields.login ?? '');
}

function summary(view: ReadView, kind: HookKind, hook: GitHubHook): EndpointSummary {
  return {
    kind,
    id: String(hook.id),
    url: hook.config.url,
    events: hook.events,
    enabled: hook.active,
    scope: scopeOf(view, hook),
  };
}

function listEndpoints(twin: Twin): Promise<EndpointSummary[]> {
  return twin.read((view) =>
    (['repository_hook', 'organization_hook'] as const).flatMap((kind) =>
      hookKinds[kind].list(view).map((hook) => summary(view, kind, hook)),
    ),
  );
}

/** What addEndpoint refuses before it reads the world: both or neither of --repo and --org, bad event names. */
function checkEndpoint(request: EndpointRequest): void {
  if ((option(request, 'repo') === undefined) === (option(request, 'org') === undefined))
    throw validationFailed(
      'a GitHub webhook belongs to one repository (--repo owner/name) or one organization (--org login); give exactly one',
      'repo',
    );
  checkEvents([...(requestedEvents(request) ?? ['*'])]);
}

async function addEndpoint(twin: Twin, request: EndpointRequest) {
  checkEndpoint(request);
  const repo = option(request, 'repo');
  const org = option(request, 'org');
  const input = {
    url: request.url,
    events: [...(requestedEvents(request) ?? ['*'])],
    // GitHub asks the user for a secret; the twin draws one of the same strength when none is given.
    secret: request.secret ?? hexToken(twin.world.ids, 20),
  };
  let hook: GitHubHook;
  let kind: HookKind;
  if (repo !== undefined) {
    if ((await twin.lookup('repository', FULL_NAME_INDEX, repo)).length === 0)
      throw notFound(
        `repository ${repo}: a hook is added to a repository that exists. ${HOW_TO_MAKE}`,
        'repo',
      );
    kind = 'repository_hook';
    hook = await createRepositoryHook(twin, { ...input, repository: repo });
  } else {
    if ((await twin.lookup('organization', LOGIN_INDEX, org!)).length === 0)
      throw notFound(
        `organization ${org}: a hook is added to an organization that exists. ${HOW_TO_MAKE}`,
        'org',
      );
    kind = 'organization_hook';
    hook = await createOrganizationHook(twin, { ...input, organization: org! });
  }
  return { ...(await twin.read((view) => summary(view, kind, hook))), secret: input.secret };
}

/** The repository a trigger acts on, and the rest of its data. */
async function target(
  twin: Twin,
  data: JsonObject | undefined,
): Promise<{ repository: GitHubRepository; data: JsonObject | undefined }> {
  const { repository: named, ...rest } = data ?? {};
  const others = Object.keys(rest).length === 0 ? undefined : rest;
  if (named === undefined) await ensureSampleRepository(twin);
  else if (typeof named !== 'string')
    throw validationFailed('repository must be a full name, owner/name', 'data.repository');
  const fullName = named ?? SAMPLE_REPO;
  const [found] = await twin.lookup('repository', FULL_NAME_INDEX, fullName);
  if (found === undefined)
    throw notFound(
      `repository ${fullName}: a trigger acts on a repository that exists. ${HOW_TO_MAKE}`,
      'data.repository',
    );
  await ensureSampleUser(twin);
  return { repository: repositoryKind.of(found), data: others };
}

function fromRecipe(recipe: Recipe) {
  return trigger(['repository', ...recipe.keys], async (twin, data) => {
    const t = await target(twin, data);
    await recipe.run({
      twin,
      data: t.data,
      repository: t.repository.full_name,
      ready: async () => {},
    });
  });
}

/** POST /hooks/{id}/pings on each active hook of the repository and of its organization. */
const ping = trigger(['repository'], async (twin, data) => {
  const { repository } = await target(twin, data);
  const hooks = await twin.read((view) => [
    ...view
      .list('repository_hook')
      .filter((r) => r.fields.repository_id === repository.id && r.fields.active === true)
      .map((r) => ['repository_hook', Number(r.id)] as const),
    ...view
      .list('organization_hook')
      .filter((r) => r.fields.organization_id === repository.owner.id && r.fields.active === true)
      .map((r) => ['organization_hook', Number(r.id)] as const),
  ]);
  for (const [kind, id] of hooks) await pingHook(twin, kind, id);
});

export const githubCli: PackCli = {
  endpointOptions: {
    repo: 'GitHub: add a repository hook to owner/name (it must exist)',
    org: 'GitHub: add an organization hook to this organization (it must exist)',
  },
  checkEndpoint,
  addEndpoint,
  listEndpoints,
  async setEndpointEnabled(twin, endpoint, enabled) {
    await updateHook(twin, endpoint.kind as HookKind, Number(endpoint.id), { active: enabled });
  },
  async removeEndpoint(twin, endpoint) {
    await deleteHook(twin, endpoint.kind as HookKind, Number(endpoint.id));
  },
  triggers: {
    ping,
    ...Object.fromEntries(Object.entries(recipes).map(([type, r]) => [type, fromRecipe(r)])),
  },
};
