// Adding a twin's commit hooks (Twin.use). Checked here, when added: a wrong one taken as given
// failed every later commit of the twin with a TypeError.
import { describeValue, TwinError } from '../errors.js';

/** Adds `hooks` to `list`, refusing a shape no commit can call or a name taken; returns the removal. */
export function addCommitHooks<H extends { readonly name: string }>(
  list: H[],
  hooks: H,
  twin: string,
): () => void {
  const h = hooks as Partial<Record<'name' | 'withinCommit' | 'afterCommit', unknown>> | null;
  if (typeof h?.name !== 'string' || h.name === '')
    throw new TwinError(
      'INVALID_ARGUMENT',
      `use(hooks): hooks must be {name, withinCommit?, afterCommit?} with a non-empty name, got ${describeValue(h?.name ?? hooks)}`,
      { path: 'hooks.name' },
    );
  for (const key of ['withinCommit', 'afterCommit'] as const)
    if (h[key] !== undefined && typeof h[key] !== 'function')
      throw new TwinError(
        'INVALID_ARGUMENT',
        `use(hooks): hooks.${key} must be a function when given, got ${describeValue(h[key])}`,
        { path: `hooks.${key}` },
      );
  if (list.some((other) => other.name === hooks.name))
    throw new TwinError(
      'INVALID_ARGUMENT',
      `twin "${twin}" already has commit hooks named "${hooks.name}"`,
      { path: 'hooks.name' },
    );
  list.push(hooks);
  return () => {
    const i = list.indexOf(hooks);
    if (i >= 0) list.splice(i, 1);
  };
}
