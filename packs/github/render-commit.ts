// GitHub's commit object (`repos.getBranch`'s `commit`): the git commit with its author, committer,
// message, tree and parents, and the GitHub accounts of its author and committer. The twin keeps
// the commits pushes brought (known-commits.ts); one no push brought is the repository's initial
// commit as "Add a README file" makes it — by the owner, when the repository was made.
import type { JsonObject } from '../../src/index.js';
import type { AccountSummary } from './accounts.js';
import type { GitActor } from './branches.js';
import type { PushedCommit } from './known-commits.js';
import { renderAccount } from './render-account.js';
import type { GitHubRepository } from './repositories.js';

/** The GitHub accounts behind a commit's author and committer (null when none is known). */
export type CommitAccounts = { author: AccountSummary | null; committer: AccountSummary | null };

function gitPerson(actor: GitActor, date: string): JsonObject {
  return { name: actor.name, email: actor.email, date };
}

export function renderCommit(
  repo: GitHubRepository,
  sha: string,
  pushed: PushedCommit | undefined,
  accounts: CommitAccounts,
): JsonObject {
  const owner: GitActor = {
    name: repo.owner.login,
    email: `${repo.owner.id}+${repo.owner.login}@users.noreply.github.com`,
  };
  const c = pushed?.commit;
  // Push timestamps carry "+00:00"; the API's commit dates are Z times.
  const date = c === undefined ? repo.created_at : c.timestamp.replace(/\+00:00$/, 'Z');
  const url = `${repo.url}/commits/${sha}`;
  const tree = c?.tree_id ?? sha;
  const parent = pushed?.parent ?? null;
  return {
    sha,
    node_id: `C_kwDO${sha.slice(0, 12)}`,
    commit: {
      author: gitPerson(c?.author ?? owner, date),
      committer: gitPerson(c?.committer ?? owner, date),
      message: c?.message ?? 'Initial commit',
      tree: { sha: tree, url: `${repo.url}/git/trees/${tree}` },
      url: `${repo.url}/git/commits/${sha}`,
      comment_count: 0,
      verification: {
        verified: false,
        reason: 'unsigned',
        signature: null,
        payload: null,
        verified_at: null,
      },
    },
    url,
    html_url: `${repo.html_url}/commit/${sha}`,
    comments_url: `${url}/comments`,
    author: accounts.author === null ? null : renderAccount(accounts.author),
    committer: accounts.committer === null ? null : renderAccount(accounts.committer),
    parents:
      parent === null
        ? []
        : [
            {
              sha: parent,
              url: `${repo.url}/commits/${parent}`,
              html_url: `${repo.html_url}/commit/${parent}`,
            },
          ],
  };
}
