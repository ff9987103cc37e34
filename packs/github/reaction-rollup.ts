// The `reactions` rollup GitHub attaches to issues and issue comments, counted when answering from
// the reactions kept under that subject (a declared index, pack.ts): one issue's reactions, never
// every reaction of the twin.
import type { JsonObject, ReadView } from '../../src/index.js';

/** Reactions by what they are on: `issue:<repo id>#<n>` or `issue_comment:<id>`. */
export const REACTION_SUBJECT_INDEX = 'subject';

/** GitHub's eight reactions, in the rollup's order. */
export const REACTION_CONTENTS = [
  '+1',
  '-1',
  'laugh',
  'hooray',
  'confused',
  'heart',
  'rocket',
  'eyes',
] as const;

export const issueSubject = (key: string) => `issue:${key}`;
export const commentSubject = (id: number) => `issue_comment:${id}`;

/** The rollup of `subject`, its url under `apiUrl` (the issue's or the comment's API URL). */
export function reactionRollup(
  view: Pick<ReadView, 'lookup'>,
  subject: string,
  apiUrl: string,
): JsonObject {
  const counts = new Map<string, number>(REACTION_CONTENTS.map((c) => [c, 0]));
  let total = 0;
  for (const r of view.lookup('reaction', REACTION_SUBJECT_INDEX, subject)) {
    const content = String(r.fields.content);
    if (!counts.has(content)) continue;
    counts.set(content, counts.get(content)! + 1);
    total += 1;
  }
  return { url: `${apiUrl}/reactions`, total_count: total, ...Object.fromEntries(counts) };
}
