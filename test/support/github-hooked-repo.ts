// A GitHub twin with one organization, one user and one repository whose hook listens for
// `issues` at `url`: the smallest world that sends GitHub webhooks, shared by the health tests.
import { github } from '../../packs/index.js';
import type { Twin } from '../../src/index.js';

export async function githubHookedRepo(
  twin: Twin,
  hook: { readonly repo: string; readonly url: string; readonly secret: string },
): Promise<void> {
  await github.createOrganization(twin, { login: 'octo-org' });
  await github.createUser(twin, { login: 'octocat' });
  await github.createRepository(twin, { owner: 'octo-org', name: hook.repo });
  await github.createRepositoryHook(twin, {
    repository: `octo-org/${hook.repo}`,
    url: hook.url,
    secret: hook.secret,
    events: ['issues'],
  });
}
