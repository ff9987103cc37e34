// The lookups that tell which commits a repository holds (known-commits.ts) and which check runs
// a commit has, declared as indexes over fields the records already carry: nothing new is written,
// so the log (and the golden walks) stay as they were, and each question is a lookup by key
// instead of a read of every branch, pull request, check suite and status of the twin.
import type { IndexDeclaration } from '../../src/index.js';

/** Branches by the tip their last push moved from (`last_push.before`). */
export const PUSHED_FROM_INDEX = 'pushed_from';
/** Branches, check suites and statuses by repository (ordered by id for suites and statuses). */
export const REPOSITORY_INDEX = 'repository';
/** Pull requests, check suites, check runs and statuses by the commit they name. */
export const HEAD_SHA_INDEX = 'head_sha';
export const BASE_SHA_INDEX = 'base_sha';
export const MERGE_SHA_INDEX = 'merge_commit_sha';
/** Statuses by commit, ordered by id: one page answers "has it any", however many it has. */
export const STATUS_SHA_INDEX = 'sha';

export const COMMIT_INDEXES: readonly IndexDeclaration[] = [
  { type: 'branch', name: PUSHED_FROM_INDEX, field: 'last_push.before' },
  { type: 'branch', name: REPOSITORY_INDEX, field: 'repository_id' },
  { type: 'pull_request', name: HEAD_SHA_INDEX, field: 'head.sha' },
  { type: 'pull_request', name: BASE_SHA_INDEX, field: 'base.sha' },
  { type: 'pull_request', name: MERGE_SHA_INDEX, field: 'merge_commit_sha' },
  { type: 'check_suite', name: HEAD_SHA_INDEX, field: 'head_sha' },
  { type: 'check_suite', name: REPOSITORY_INDEX, field: 'repository_id', orderBy: 'id' },
  { type: 'check_run', name: HEAD_SHA_INDEX, field: 'head_sha' },
  { type: 'commit_status', name: STATUS_SHA_INDEX, field: 'sha', orderBy: 'id' },
  { type: 'commit_status', name: REPOSITORY_INDEX, field: 'repository_id', orderBy: 'id' },
];
