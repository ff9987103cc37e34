// The view a decide (or a read) sees inside a section: resources and lookups through the twin's
// caches and the section's reads, with what the section staged so far laid over the store's answers.
import { describeValue, TwinError } from '../errors.js';
import { foldedKey, indexKeys, type IndexDeclaration } from '../state/indexes.js';
import type { ReadView } from '../state/read-view.js';
import { freezeResource, resourceKey, type Resource } from '../state/resource.js';
import { compareKeys } from '../state/state-hash.js';
import { rangeIn } from './range-view.js';
import { checkGetMany, checkLookup, checkResourceRef, checkUpTo } from './read-arguments.js';
import type { Section } from './section.js';
import type { TwinState } from './twin-state.js';

// Its arguments are checked as the twin's own reads check theirs: a wrong one inside a decide read
// as "nothing there" (get(42, id) → undefined, list() → []), and the decide went on to decide on it.
export function sectionView(state: TwinState, s: Section, head: number): ReadView {
  return {
    head,
    get: (type, id) => {
      checkResourceRef('get', type, id);
      return state.resource(s, type, id);
    },
    getMany: (type, ids) => {
      checkGetMany(type, ids);
      for (const id of ids) state.prefetchResource(s, type, id);
      return ids.map((id) => state.resource(s, type, id));
    },
    list: (type) => {
      checkResourceRef('list', type);
      return withStaged(
        s,
        type,
        s.read(`list:${type}`, () => s.tx.listResources(type)),
        () => true,
      );
    },
    lookup: (type, index, asked) => {
      checkLookup(type, index, asked);
      return lookupIn(state, s, type, index, asked);
    },
    lookupMany: (asks) => {
      if (!Array.isArray(asks))
        throw new TwinError(
          'INVALID_ARGUMENT',
          `lookupMany(asks): asks must be an array of {type, index, key}, got ${describeValue(asks)}`,
          { path: 'asks' },
        );
      for (const a of asks) checkLookup(a?.type, a?.index, a?.key);
      for (const a of asks)
        state.prefetchLookup(
          s,
          a.type,
          a.index,
          foldedKey(state.declared(a.type, a.index)[0]!, a.key),
        );
      return asks.map((a) => lookupIn(state, s, a.type, a.index, a.key));
    },
    lookupUpTo: (type, index, maxKey, limit) => {
      checkUpTo('lookupUpTo', type, index, maxKey, limit);
      const decls = state.declared(type, index);
      const rows = s.read(`upTo:${type}\u0000${index}\u0000${maxKey}\u0000${limit}`, () =>
        s.tx.lookupUpTo(type, index, maxKey, limit),
      );
      return withStagedRange(s, type, rows.map(freezeResource), decls, maxKey, limit);
    },
    range: (type, index, page) => rangeIn(state, s, type, index, page),
    pickUpTo: (type, index, maxKey, limit) => {
      checkUpTo('pickUpTo', type, index, maxKey, limit);
      const decls = state.declared(type, index);
      state.hints.noted(type, index, limit);
      // A section that commits only if the head is still `head` may take the rows this process's
      // last commit read at that head; a tenant's section sees only its tenant's rows.
      const hinted =
        s.optimistic && !s.tenantScoped
          ? state.hints.answer(head, type, index, maxKey, limit)
          : undefined;
      const rows =
        hinted ??
        s.read(`pick:${type}\u0000${index}\u0000${maxKey}\u0000${limit}`, () =>
          s.tx.lookupUpTo(type, index, maxKey, limit),
        );
      // Read under the twin's lock, each row is as it is now: the decide's get of it reads nothing.
      for (const r of rows) {
        const key = `get:${resourceKey(r.type, r.id)}`;
        if (s.loaded.has(key)) continue;
        s.loaded.set(key, r);
        if (hinted !== undefined) s.hinted.add(key);
      }
      return withStagedRange(s, type, rows.map(freezeResource), decls, maxKey, limit);
    },
  };
}

/**
 * A list or lookup as the store answered it, with what this section staged laid over it: the
 * store may not hold a section's writes until commit, yet a commit hook must see the endpoint
 * the same decide created (a new hook's ping).
 */
function lookupIn(
  state: TwinState,
  s: Section,
  type: string,
  index: string,
  asked: string,
): Resource[] {
  const decls = state.declared(type, index);
  const key = foldedKey(decls[0]!, asked);
  const rows = state.lookupRows(s, type, index, key);
  return withStaged(s, type, rows, (r) => indexKeys(r, decls).some((k) => k.key === key));
}

function withStaged(
  s: Section,
  type: string,
  stored: readonly Resource[],
  keep: (r: Resource) => boolean,
): Resource[] {
  const out = stored.map(freezeResource);
  if (s.staged.size === 0) return out;
  let changed = false;
  const byId = new Map(out.map((r) => [r.id, r]));
  for (const r of s.staged.values()) {
    if (r.type !== type) continue;
    changed = true;
    if (!r.deleted && keep(r)) byId.set(r.id, r);
    else byId.delete(r.id);
  }
  if (!changed) return out;
  return [...byId.values()].sort((a, b) => compareKeys(a.id, b.id));
}

/** A range as the store answered it, with this section's staged writes laid over it, in (key, id) order. */
function withStagedRange(
  s: Section,
  type: string,
  stored: Resource[],
  decls: readonly IndexDeclaration[],
  maxKey: string,
  limit: number,
): Resource[] {
  if (s.staged.size === 0) return stored;
  const keyOf = (r: Resource): string | undefined =>
    indexKeys(r, decls)
      .map((k) => k.key)
      .filter((k) => compareKeys(k, maxKey) <= 0)
      .sort(compareKeys)[0];
  const byId = new Map<string, { r: Resource; key: string }>();
  for (const r of stored) byId.set(r.id, { r, key: keyOf(r) ?? maxKey });
  for (const r of s.staged.values()) {
    if (r.type !== type) continue;
    const key = r.deleted ? undefined : keyOf(r);
    if (key === undefined) byId.delete(r.id);
    else byId.set(r.id, { r, key });
  }
  return [...byId.values()]
    .sort((a, b) => compareKeys(a.key, b.key) || compareKeys(a.r.id, b.r.id))
    .slice(0, limit)
    .map((x) => x.r);
}
