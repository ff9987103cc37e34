// One PATCH of an issue as one commit: its title and body (`issues.edited`), and its state —
// closing (`issues.closed`, keeping who closed it as `closed_by`) or reopening it — in the same
// atomic action, as GitHub applies a single update. A reopen is recorded (`issue.reopen`) and sends
// no webhook yet; nothing changed, nothing written.
import { commit, skip, type JsonObject, type Twin, type Write } from '../../src/index.js';
import { requirePackTwin } from '../kit/twin-checks.js';
import { actorOf, findUser, summary } from './accounts.js';
import { validationFailed } from './errors.js';
import { githubTime } from './ids.js';
import { checkBody, issueKey, issueKind, type GitHubIssue, type IssueRef } from './issues.js';
import { findRepository, openCountChange } from './repositories.js';
import { notFound } from './errors.js';

export interface UpdateIssueInput extends IssueRef {
  title?: string;
  body?: string | null;
  state?: 'open' | 'closed';
  state_reason?: 'completed' | 'not_planned' | null;
}

export async function updateIssue(twin: Twin, input: UpdateIssueInput): Promise<GitHubIssue> {
  requirePackTwin(twin, 'github');
  if (input?.title !== undefined && (typeof input.title !== 'string' || input.title.trim() === ''))
    throw validationFailed('title must not be blank', 'title');
  checkBody(input.body);
  if (input.state !== undefined && input.state !== 'open' && input.state !== 'closed')
    throw validationFailed('state must be "open" or "closed"', 'state');
  const reason = input.state_reason ?? 'completed';
  if (reason !== 'completed' && reason !== 'not_planned')
    throw validationFailed('state_reason must be "completed" or "not_planned"', 'state_reason');
  const done = await twin.applyAtomic((view) => {
    const repo = findRepository(view, input.repository);
    const key = issueKey(repo.id, input.number);
    const issue = issueKind.read(view, key);
    if (issue === undefined)
      throw notFound(`issue #${input.number} in ${input.repository}`, 'number');
    const sender = findUser(view, input.sender);
    const now = githubTime(twin.world.clock.now());
    const at = { subjectType: 'issue', subjectId: key, actor: actorOf(sender) } as const;
    const writes: Write[] = [];
    let current = issue;
    const edit: JsonObject = {};
    if (input.title !== undefined && input.title !== issue.title) edit.title = input.title;
    if (input.body !== undefined && input.body !== issue.body) edit.body = input.body;
    if (Object.keys(edit).length > 0) {
      edit.updated_at = now;
      writes.push({ operation: 'issue.edit', fields: edit, ...at });
      current = issueKind.from({ ...issueKind.json(current), ...edit });
    }
    if (input.state !== undefined && input.state !== current.state) {
      const closing = input.state === 'closed';
      const fields = issueKind.json({
        state: input.state,
        state_reason: closing ? reason : 'reopened',
        closed_at: closing ? now : null,
        updated_at: now,
        ...(closing ? { closed_by: summary(sender) } : {}),
      });
      writes.push({
        operation: closing ? 'issue.close' : 'issue.reopen',
        fields,
        ...at,
        projection: { updates: [openCountChange(repo, closing ? -1 : 1)] },
      });
      current = issueKind.from({ ...issueKind.json(current), ...fields });
    }
    return writes.length === 0 ? skip(issue) : commit(writes, current);
  });
  return done.result;
}
