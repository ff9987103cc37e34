// Repositories, owned by a user or an organization. Issues and pull requests share one number
// sequence per repository, as on GitHub; open_issues_count follows them.
import {
  commit,
  type ProjectedResource,
  type ReadView,
  type Resource,
  type Twin,
} from '../../src/index.js';
import { requirePackTwin } from '../kit/twin-checks.js';
import {
  summary,
  type AccountSummary,
  type GitHubOrganization,
  type GitHubUser,
  lookupAccount,
} from './accounts.js';
import { notFound, validationFailed } from './errors.js';
import { githubIds, githubTime } from './ids.js';
import { recordKind } from '../../src/index.js';

export const FULL_NAME_INDEX = 'full_name';
/** Per-repository counter behind issue and pull request numbers (a twin resource, never rendered). */
const NUMBER_SEQUENCE = 'issue_number_sequence';

export type GitHubRepository = {
  id: number;
  node_id: string;
  name: string;
  full_name: string;
  private: boolean;
  owner: AccountSummary;
  html_url: string;
  description: string | null;
  fork: boolean;
  url: string;
  created_at: string;
  updated_at: string;
  pushed_at: string;
  homepage: string | null;
  size: number;
  stargazers_count: number;
  watchers_count: number;
  language: string | null;
  has_issues: boolean;
  forks_count: number;
  archived: boolean;
  disabled: boolean;
  open_issues_count: number;
  license: null;
  visibility: 'public' | 'private';
  forks: number;
  open_issues: number;
  watchers: number;
  default_branch: string;
};

/** The repository records of the twin, typed (src/state/record-kind.ts). */
export const repositoryKind = recordKind<GitHubRepository>({ type: 'repository' });

export interface CreateRepositoryInput {
  /** Login of the owning user or organization. */
  owner: string;
  name: string;
  private?: boolean;
  description?: string;
  default_branch?: string;
}

const NAME = /^[A-Za-z0-9._-]{1,100}$/;

/**
 * The repository `owner/name`, whatever its case: GitHub matches both parts case-insensitively and
 * answers with the canonical names; the full-name index keeps its keys in lower case (pack.ts).
 */
function lookupRepository(view: ReadView, fullName: string): Resource | undefined {
  return view.lookup('repository', FULL_NAME_INDEX, fullName)[0];
}

export function findRepository(
  view: ReadView,
  fullName: string,
  path = 'repository',
): GitHubRepository {
  const repo = lookupRepository(view, fullName);
  if (repo === undefined) throw notFound(`repository ${fullName}`, path);
  return repositoryKind.of(repo);
}

export async function createRepository(
  twin: Twin,
  input: CreateRepositoryInput,
): Promise<GitHubRepository> {
  requirePackTwin(twin, 'github');
  if (
    typeof input?.name !== 'string' ||
    !NAME.test(input.name) ||
    input.name === '.' ||
    input.name === '..'
  ) {
    throw validationFailed(
      'name may hold only letters, digits, ".", "-" and "_" (1–100 characters)',
      'name',
    );
  }
  if (typeof input.owner !== 'string')
    throw validationFailed('owner must be a user or organization login', 'owner');
  if (
    input.default_branch !== undefined &&
    (typeof input.default_branch !== 'string' ||
      !/^[^\s~^:?*[\]\\]{1,200}$/.test(input.default_branch))
  ) {
    throw validationFailed(
      'default_branch must be a valid branch name, e.g. "main"',
      'default_branch',
    );
  }
  const done = await twin.applyAtomic((view) => {
    const owner = (
      lookupAccount(view, 'user', input.owner) ?? lookupAccount(view, 'organization', input.owner)
    )?.fields as GitHubUser | GitHubOrganization | undefined;
    if (owner === undefined) throw notFound(`user or organization ${input.owner}`, 'owner');
    const fullName = `${owner.login}/${input.name}`;
    // `R1` beside `r1` is the same name to GitHub.
    if (lookupRepository(view, fullName) !== undefined)
      throw validationFailed(`name already exists on this account (${fullName})`, 'name');
    const ids = twin.world.ids;
    const id = githubIds.numeric(ids);
    const now = githubTime(twin.world.clock.now());
    const repo: GitHubRepository = {
      id,
      node_id: githubIds.node(ids, 'R'),
      name: input.name,
      full_name: fullName,
      private: input.private ?? false,
      owner: summary(owner),
      html_url: `https://github.com/${fullName}`,
      description: input.description ?? null,
      fork: false,
      url: `https://api.github.com/repos/${fullName}`,
      created_at: now,
      updated_at: now,
      pushed_at: now,
      homepage: null,
      size: 0,
      stargazers_count: 0,
      watchers_count: 0,
      language: null,
      has_issues: true,
      forks_count: 0,
      archived: false,
      disabled: false,
      open_issues_count: 0,
      license: null,
      visibility: input.private === true ? 'private' : 'public',
      forks: 0,
      open_issues: 0,
      watchers: 0,
      default_branch: input.default_branch ?? 'main',
    };
    // Initialised with a README, as "Add a README file" does: the default branch exists at once.
    const branch = {
      repository_id: id,
      name: repo.default_branch,
      sha: githubIds.sha(ids),
      last_push: null,
    };
    return commit(
      {
        operation: 'repository.create',
        subjectType: 'repository',
        subjectId: String(id),
        fields: repo,
        projection: {
          creates: [{ type: 'branch', id: `${id}:${repo.default_branch}`, fields: branch }],
        },
      },
      repo,
    );
  });
  return done.result;
}

/** The next issue/PR number of a repository, and the projection that records it. */
export function nextNumber(
  view: ReadView,
  repo: GitHubRepository,
): { number: number; projection: ProjectedResource } {
  const last = view.get(NUMBER_SEQUENCE, String(repo.id))?.fields.last;
  const number = (typeof last === 'number' ? last : 0) + 1;
  return {
    number,
    projection: { type: NUMBER_SEQUENCE, id: String(repo.id), fields: { last: number } },
  };
}

/** Moves the repository's open issue count with an issue or PR opening (+1) or closing (-1). */
export function openCountChange(repo: GitHubRepository, delta: 1 | -1): ProjectedResource {
  const count = Math.max(0, repo.open_issues_count + delta);
  return {
    type: 'repository',
    id: String(repo.id),
    fields: { open_issues_count: count, open_issues: count },
  };
}
