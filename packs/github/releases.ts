// Releases: publishing one tags a commit (the target branch's tip unless given) and sends
// `release` created and published, as GitHub does for a release that is not a draft.
import { commit, type Twin } from '../../src/index.js';
import { requirePackTwin } from '../kit/twin-checks.js';
import { actorOf, findUser, summary, type AccountSummary } from './accounts.js';
import { findBranch } from './branches.js';
import { validationFailed } from './errors.js';
import { githubIds, githubTime } from './ids.js';
import { findRepository } from './repositories.js';
import { recordKind } from '../../src/index.js';

export type GitHubRelease = {
  id: number;
  node_id: string;
  tag_name: string;
  target_commitish: string;
  name: string | null;
  draft: boolean;
  prerelease: boolean;
  author: AccountSummary;
  created_at: string;
  published_at: string | null;
  body: string | null;
  repository_id: number;
  /** The tagged commit (twin bookkeeping). */
  sha: string;
};

/** The release records of the twin, typed (src/state/record-kind.ts). */
export const releaseKind = recordKind<GitHubRelease>({ type: 'release' });

export interface PublishReleaseInput {
  repository: string;
  tag_name: string;
  name?: string;
  body?: string;
  /** A branch; the default branch when omitted. */
  target_commitish?: string;
  prerelease?: boolean;
  sender: string;
}

export async function publishRelease(
  twin: Twin,
  input: PublishReleaseInput,
): Promise<GitHubRelease> {
  requirePackTwin(twin, 'github');
  if (typeof input?.tag_name !== 'string' || !/^[^\s~^:?*[\]\\]{1,200}$/.test(input.tag_name))
    throw validationFailed('tag_name must be a valid tag name, e.g. "v1.0.0"', 'tag_name');
  const done = await twin.applyAtomic((view) => {
    const repo = findRepository(view, input.repository);
    const sender = findUser(view, input.sender);
    if (view.get('release_tag', `${repo.id}:${input.tag_name}`) !== undefined)
      throw validationFailed(`tag_name "${input.tag_name}" already has a release`, 'tag_name');
    const target = input.target_commitish ?? repo.default_branch;
    const branch = findBranch(view, repo, target);
    if (branch === undefined)
      throw validationFailed(
        `target_commitish "${target}" is not a branch of ${repo.full_name}`,
        'target_commitish',
      );
    const ids = twin.world.ids;
    const now = githubTime(twin.world.clock.now());
    const release: GitHubRelease = {
      id: githubIds.numeric(ids),
      node_id: githubIds.node(ids, 'RE'),
      tag_name: input.tag_name,
      target_commitish: target,
      name: input.name ?? input.tag_name,
      draft: false,
      prerelease: input.prerelease === true,
      author: summary(sender),
      created_at: now,
      published_at: now,
      body: input.body ?? null,
      repository_id: repo.id,
      sha: branch.sha,
    };
    return commit(
      {
        operation: 'release.publish',
        subjectType: 'release',
        subjectId: String(release.id),
        fields: release,
        actor: actorOf(sender),
        projection: {
          creates: [
            {
              type: 'release_tag',
              id: `${repo.id}:${input.tag_name}`,
              fields: { release_id: release.id },
            },
          ],
        },
      },
      release,
    );
  });
  return done.result;
}
