// Index keys of ordered indexes for one staged write. A key is stamped with the seq of the entry
// that put the resource under it; removing it later needs that stamp back, found among what this
// section staged or read from the store among the resource's same-order siblings (a short read,
// paid only when a resource leaves a key: deleted, or its field moved).
import type { IndexDeclaration, IndexKey } from '../state/indexes.js';
import { orderedBases, stamped } from '../state/ordered-index.js';
import type { Resource } from '../state/resource.js';
import type { Section } from './section.js';

export function orderedDelta(
  s: Section,
  prev: Resource | undefined,
  next: Resource,
  decls: readonly IndexDeclaration[],
  seq: number,
): { remove: IndexKey[]; add: IndexKey[] } {
  const remove: IndexKey[] = [];
  const add: IndexKey[] = [];
  for (const decl of decls) {
    const before = orderedBases(prev, decl);
    const after = orderedBases(next, decl);
    for (const base of before) {
      if (after.includes(base)) continue;
      const key = stampedKey(s, decl, next, base);
      if (key !== undefined) remove.push({ name: decl.name, key });
    }
    for (const base of after)
      if (!before.includes(base)) add.push({ name: decl.name, key: stamped(base, seq) });
  }
  return { remove, add };
}

function stampedKey(
  s: Section,
  decl: IndexDeclaration,
  r: Resource,
  base: string,
): string | undefined {
  for (let i = s.puts.length - 1; i >= 0; i--) {
    const p = s.puts[i]!;
    if (p.resource.type !== r.type || p.resource.id !== r.id) continue;
    const hit = p.delta.add.find((k) => k.name === decl.name && k.key.startsWith(base));
    if (hit !== undefined) return hit.key;
  }
  const rows = s.read(`range-key:${r.type}\u0000${decl.name}\u0000${base}`, () =>
    s.tx.range(r.type, decl.name, { prefix: base, limit: Number.MAX_SAFE_INTEGER }),
  );
  return rows.find((row) => row.resource.id === r.id)?.key;
}
