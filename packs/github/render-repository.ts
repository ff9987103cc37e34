// GitHub's repository object, rendered whole from the kept repository: the ~45 API URL templates
// GitHub derives from the full name, the clone URLs, and the settings a new repository has. The
// push payload's variant has integer timestamps, `stargazers` and `master_branch`, as GitHub's does.
import type { JsonObject } from '../../src/index.js';
import { renderAccount } from './render-account.js';
import type { GitHubRepository } from './repositories.js';

/** GitHub's URL templates, in GitHub's order: [key, path after the repository's API URL]. */
const URLS: readonly [string, string][] = [
  ['forks_url', '/forks'],
  ['keys_url', '/keys{/key_id}'],
  ['collaborators_url', '/collaborators{/collaborator}'],
  ['teams_url', '/teams'],
  ['hooks_url', '/hooks'],
  ['issue_events_url', '/issues/events{/number}'],
  ['events_url', '/events'],
  ['assignees_url', '/assignees{/user}'],
  ['branches_url', '/branches{/branch}'],
  ['tags_url', '/tags'],
  ['blobs_url', '/git/blobs{/sha}'],
  ['git_tags_url', '/git/tags{/sha}'],
  ['git_refs_url', '/git/refs{/sha}'],
  ['trees_url', '/git/trees{/sha}'],
  ['statuses_url', '/statuses/{sha}'],
  ['languages_url', '/languages'],
  ['stargazers_url', '/stargazers'],
  ['contributors_url', '/contributors'],
  ['subscribers_url', '/subscribers'],
  ['subscription_url', '/subscription'],
  ['commits_url', '/commits{/sha}'],
  ['git_commits_url', '/git/commits{/sha}'],
  ['comments_url', '/comments{/number}'],
  ['issue_comment_url', '/issues/comments{/number}'],
  ['contents_url', '/contents/{+path}'],
  ['compare_url', '/compare/{base}...{head}'],
  ['merges_url', '/merges'],
  ['archive_url', '/{archive_format}{/ref}'],
  ['downloads_url', '/downloads'],
  ['issues_url', '/issues{/number}'],
  ['pulls_url', '/pulls{/number}'],
  ['milestones_url', '/milestones{/number}'],
  ['notifications_url', '/notifications{?since,all,participating}'],
  ['labels_url', '/labels{/name}'],
  ['releases_url', '/releases{/id}'],
  ['deployments_url', '/deployments'],
];

function urls(repo: GitHubRepository): JsonObject {
  const out: JsonObject = {};
  for (const [key, path] of URLS) out[key] = `${repo.url}${path}`;
  return out;
}

const seconds = (iso: string): number => Math.floor(Date.parse(iso) / 1000);

/** The short repository object workflow runs carry (`repository`, `head_repository`). */
export function renderRepositoryLite(repo: GitHubRepository): JsonObject {
  return {
    id: repo.id,
    node_id: repo.node_id,
    name: repo.name,
    full_name: repo.full_name,
    private: repo.private,
    owner: renderAccount(repo.owner),
    html_url: repo.html_url,
    description: repo.description,
    fork: repo.fork,
    url: repo.url,
    ...urls(repo),
  };
}

/** `{id, url, name}`: how check runs and suites refer to a pull request's repositories. */
function repoRef(repo: GitHubRepository): JsonObject {
  return { id: repo.id, url: repo.url, name: repo.name };
}

export function renderRepository(
  repo: GitHubRepository,
  variant: 'event' | 'push' = 'event',
): JsonObject {
  const push = variant === 'push';
  const out: JsonObject = {
    id: repo.id,
    node_id: repo.node_id,
    name: repo.name,
    full_name: repo.full_name,
    private: repo.private,
    owner: push
      ? { name: repo.owner.login, email: null, ...renderAccount(repo.owner) }
      : renderAccount(repo.owner),
    html_url: repo.html_url,
    description: repo.description,
    fork: repo.fork,
    url: repo.url,
    ...urls(repo),
    created_at: push ? seconds(repo.created_at) : repo.created_at,
    updated_at: repo.updated_at,
    pushed_at: push ? seconds(repo.pushed_at) : repo.pushed_at,
    git_url: `git://github.com/${repo.full_name}.git`,
    ssh_url: `git@github.com:${repo.full_name}.git`,
    clone_url: `${repo.html_url}.git`,
    svn_url: repo.html_url,
    homepage: repo.homepage,
    size: repo.size,
    stargazers_count: repo.stargazers_count,
    watchers_count: repo.watchers_count,
    language: repo.language,
    has_issues: repo.has_issues,
    has_projects: true,
    has_downloads: true,
    has_wiki: true,
    has_pages: false,
    has_discussions: false,
    forks_count: repo.forks_count,
    mirror_url: null,
    archived: repo.archived,
    disabled: repo.disabled,
    open_issues_count: repo.open_issues_count,
    license: null,
    allow_forking: true,
    is_template: false,
    web_commit_signoff_required: false,
    topics: [],
    visibility: repo.visibility,
    forks: repo.forks,
    open_issues: repo.open_issues,
    watchers: repo.watchers,
    default_branch: repo.default_branch,
  };
  if (push) {
    out.stargazers = repo.stargazers_count;
    out.master_branch = repo.default_branch;
    if (repo.owner.type === 'Organization') out.organization = repo.owner.login;
  }
  out.custom_properties = {};
  return out;
}
