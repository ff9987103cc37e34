// Reactions (+1, heart, rocket, …) on issues, pull requests and issue comments. GitHub sends no
// webhook for them; a second identical reaction by the same user is the first one again. They are
// found by what they are on (REACTION_SUBJECT_INDEX), never by listing every reaction.
import { commit, recordKind, skip, type ReadView, type Twin } from '../../src/index.js';
import { requirePackTwin } from '../kit/twin-checks.js';
import { actorOf, findUser, summary, type AccountSummary } from './accounts.js';
import { notFound, validationFailed } from './errors.js';
import { githubIds, githubTime } from './ids.js';
import { issueKey } from './issues.js';
import { issueCommentKind } from './comments.js';
import {
  commentSubject,
  issueSubject,
  REACTION_CONTENTS,
  REACTION_SUBJECT_INDEX,
} from './reaction-rollup.js';
import { findRepository } from './repositories.js';

const REACTIONS: readonly string[] = REACTION_CONTENTS;

export type GitHubReaction = {
  id: number;
  node_id: string;
  user: AccountSummary;
  content: string;
  created_at: string;
  /** Twin bookkeeping: what was reacted to, `issue:<repo id>#<n>` or `issue_comment:<id>`. */
  subject: string;
};

const reactionKind = recordKind<GitHubReaction>({ type: 'reaction' });

export type ReactionTarget =
  { repository: string; number: number } | { repository: string; comment_id: number };

function subjectOf(view: ReadView, target: ReactionTarget): string {
  const repo = findRepository(view, target.repository);
  if ('comment_id' in target) {
    const c = issueCommentKind.read(view, target.comment_id);
    if (c === undefined || !c.issue_key.startsWith(`${repo.id}#`))
      throw notFound(`comment ${target.comment_id} in ${target.repository}`, 'comment_id');
    return commentSubject(c.id);
  }
  const key = issueKey(repo.id, target.number);
  const live = ['issue', 'pull_request'].some((t) => {
    const r = view.get(t, key);
    return r !== undefined && !r.deleted;
  });
  if (!live) throw notFound(`issue #${target.number} in ${target.repository}`, 'number');
  return issueSubject(key);
}

/** A subject's reactions, oldest first: a reaction is never rewritten, so its version is its birth. */
function onSubject(view: ReadView, subject: string): GitHubReaction[] {
  return [...view.lookup('reaction', REACTION_SUBJECT_INDEX, subject)]
    .sort((a, b) => a.version - b.version)
    .map((r) => reactionKind.of(r));
}

/** The reactions on a target, oldest first. */
export function reactionsOn(view: ReadView, target: ReactionTarget): GitHubReaction[] {
  const subject = subjectOf(view, target);
  return onSubject(view, subject);
}

/** Adds a reaction; `created` is false when the user had already reacted so. */
export async function addReaction(
  twin: Twin,
  input: ReactionTarget & { content: string; sender: string },
): Promise<{ reaction: GitHubReaction; created: boolean }> {
  requirePackTwin(twin, 'github');
  if (!REACTIONS.includes(input?.content))
    throw validationFailed(`content must be one of ${REACTIONS.join(', ')}`, 'content');
  const done = await twin.applyAtomic((view) => {
    const subject = subjectOf(view, input);
    const sender = findUser(view, input.sender);
    const same = onSubject(view, subject).find(
      (r) => r.user.id === sender.id && r.content === input.content,
    );
    if (same !== undefined) return skip({ reaction: same, created: false });
    const ids = twin.world.ids;
    const reaction: GitHubReaction = {
      id: githubIds.numeric(ids),
      node_id: githubIds.node(ids, 'REA'),
      user: summary(sender),
      content: input.content,
      created_at: githubTime(twin.world.clock.now()),
      subject,
    };
    return commit(
      reactionKind.write('reaction.create', String(reaction.id), reaction, {
        actor: actorOf(sender),
      }),
      { reaction, created: true },
    );
  });
  return done.result;
}
