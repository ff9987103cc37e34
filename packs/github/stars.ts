// Stars: a user stars or unstars a repository; stargazers_count (and watchers_count, which
// GitHub keeps equal to it) follows in the same commit.
import { commit, skip, type Twin } from '../../src/index.js';
import { requirePackTwin } from '../kit/twin-checks.js';
import { actorOf, findUser } from './accounts.js';
import { githubTime } from './ids.js';
import { findRepository, type GitHubRepository } from './repositories.js';
import { recordKind } from '../../src/index.js';

export type GitHubStar = { repository_id: number; user_id: number; starred_at: string };

/** The star records of the twin, typed (src/state/record-kind.ts). */
export const starKind = recordKind<GitHubStar>({ type: 'star' });

function countChange(repo: GitHubRepository, delta: 1 | -1) {
  const count = Math.max(0, repo.stargazers_count + delta);
  return {
    type: 'repository',
    id: String(repo.id),
    fields: { stargazers_count: count, watchers_count: count, watchers: count },
  };
}

/** Stars the repository; starring it again changes nothing and sends nothing, as on GitHub. */
export async function starRepository(
  twin: Twin,
  input: { repository: string; sender: string },
): Promise<GitHubStar> {
  requirePackTwin(twin, 'github');
  const done = await twin.applyAtomic((view) => {
    const repo = findRepository(view, input.repository);
    const user = findUser(view, input.sender);
    const key = `${repo.id}:${user.id}`;
    const existing = view.get('star', key);
    if (existing !== undefined && !existing.deleted) return skip(starKind.of(existing));
    const star: GitHubStar = {
      repository_id: repo.id,
      user_id: user.id,
      starred_at: githubTime(twin.world.clock.now()),
    };
    return commit(
      {
        operation: 'star.create',
        subjectType: 'star',
        subjectId: key,
        fields: star,
        actor: actorOf(user),
        projection: { updates: [countChange(repo, 1)] },
      },
      star,
    );
  });
  return done.result;
}

export async function unstarRepository(
  twin: Twin,
  input: { repository: string; sender: string },
): Promise<void> {
  requirePackTwin(twin, 'github');
  await twin.applyAtomic((view) => {
    const repo = findRepository(view, input.repository);
    const user = findUser(view, input.sender);
    const key = `${repo.id}:${user.id}`;
    const existing = view.get('star', key);
    if (existing === undefined || existing.deleted) return skip(undefined);
    return commit(
      {
        operation: 'star.delete',
        subjectType: 'star',
        subjectId: key,
        delete: true,
        actor: actorOf(user),
        projection: { updates: [countChange(repo, -1)] },
      },
      undefined,
    );
  });
}
