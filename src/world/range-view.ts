// A range read inside a section: one page of an ordered index, answered by the store's bounded
// read (StoreTx.range), the cursor found among its same-order siblings so even that stays short.
import { TwinError } from '../errors.js';
import { orderedPrefix, orderedSlice } from '../state/ordered-index.js';
import type { RangePage } from '../state/read-view.js';
import { freezeResource, type Resource } from '../state/resource.js';
import { checkRange } from './read-arguments.js';
import type { Section } from './section.js';
import type { TwinState } from './twin-state.js';

export function rangeIn(
  state: TwinState,
  s: Section,
  type: string,
  index: string,
  page: RangePage,
): Resource[] {
  checkRange(type, index, page);
  const [decl] = state.declared(type, index);
  if (decl?.orderBy === undefined)
    throw new TwinError(
      'INVALID_ARGUMENT',
      `index "${index}" on type "${type}" is not ordered; declare it with orderBy (e.g. "created") to read ranges`,
      { path: 'index' },
    );
  // The store holds no section's writes before commit; a range never mixes them in, so a
  // section that staged this type must not read one (decides read before they write).
  for (const r of s.staged.values())
    if (r.type === type)
      throw new TwinError(
        'INVALID_ARGUMENT',
        `a range of "${type}" cannot be read after this section wrote one`,
      );
  const prefix = orderedPrefix(page.key);
  let after: { id: string; within: string } | undefined;
  if (page.after !== undefined) {
    const cursor = state.resource(s, type, page.after);
    if (cursor === undefined || cursor.deleted) return [];
    after = { id: page.after, within: orderedSlice(page.key, cursor, decl) };
  }
  const limit = Math.max(0, Math.floor(page.limit));
  const query = {
    prefix,
    ...(after === undefined ? {} : { after }),
    limit,
    descending: page.descending === true,
  };
  const rows = s.read(`range:${JSON.stringify([type, index, query])}`, () =>
    s.tx.range(type, index, query),
  );
  return rows.map((row) => freezeResource(row.resource));
}
