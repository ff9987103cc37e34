// `endpoints list`'s recent success rate: of an endpoint's last 20 finished attempts, how many
// succeeded, read from its attempt records (a GitHub hook refused three times, then answered).
import { expect, it } from 'vitest';
import { github } from '../../packs/index.js';
import { locateEndpoints } from '../../src/events/endpoint-lookup.js';
import { RECENT_ATTEMPTS } from '../../src/events/endpoint-success.js';
import { openWalk } from '../../src/walk/index.js';
import { githubHookedRepo } from '../support/github-hooked-repo.js';

it('counts the last attempts of each endpoint, newest first, each endpoint its own', async () => {
  const walk = await openWalk({
    seed: 'endpoint-success',
    start: '2026-05-04T08:00:00Z',
    packs: [github.pack],
  });
  const twin = walk.twin('github');
  const ci = walk.receiver('ci', { script: ['refused', 'refused', 'refused'] });
  await githubHookedRepo(twin, { repo: 'hello', url: ci.url, secret: 's' });
  // An organization hook that hears only its ping, answered: its own count.
  const other = walk.receiver('other');
  await github.createOrganizationHook(twin, {
    organization: 'octo-org',
    url: other.url,
    secret: 's',
    events: ['star'],
  });
  const issue = () =>
    github.openIssue(twin, { repository: 'octo-org/hello', sender: 'octocat', title: 'Bug' });
  for (let i = 0; i < 5; i++) await issue();
  await walk.settle();
  await walk.runUntilIdle();
  const byKind = async () =>
    new Map((await locateEndpoints(walk.world, 'github')).map((e) => [e.kind, e.recent]));
  // ping + 5 issues: three refused, three answered.
  expect((await byKind()).get('repository_hook')).toEqual({
    attempts: 6,
    succeeded: 3,
    rate: 0.5,
  });
  expect((await byKind()).get('organization_hook')).toEqual({ attempts: 1, succeeded: 1, rate: 1 });
  // Enough successes push the failures out of the window.
  for (let i = 0; i < RECENT_ATTEMPTS; i++) await issue();
  await walk.settle();
  await walk.runUntilIdle();
  expect((await byKind()).get('repository_hook')).toEqual({
    attempts: RECENT_ATTEMPTS,
    succeeded: RECENT_ATTEMPTS,
    rate: 1,
  });
  await walk.close();
});
