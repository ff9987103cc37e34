// An index declared on a twin that already holds resources: its keys built once, in one section,
// and the declaration recorded beside the build, so every later write section of any process
// maintains it. Synchronous where the store is: a section that awaits while holding SQLite's
// write lock would block every other connection of this process on the busy timeout.
import { indexSignature, type IndexDeclaration } from '../state/indexes.js';
import { builtKeys } from '../state/ordered-index.js';
import type { StoreTx } from '../storage/port.js';
import {
  builtMetaKey,
  decodeDeclarations,
  INDEXES_META_KEY,
  withDeclaration,
} from './declared-indexes.js';
import type { Section } from './section.js';
import { INDEXES_READ } from './twin-state.js';

/**
 * Builds `decl`'s keys unless built already and records the declaration. Answers what the
 * declarations' row holds after the commit: a later optimistic section's condition (that they
 * did not move) must expect it, else it fails on this process's own write.
 */
export function buildIndexIn(tx: StoreTx, s: Section, decl: IndexDeclaration): string | undefined {
  const metaKey = builtMetaKey(decl);
  const signature = indexSignature([decl]);
  const list = s.read(INDEXES_READ, () => tx.getMeta(INDEXES_META_KEY));
  const recorded = decodeDeclarations(list).some((d) => indexSignature([d]) === signature);
  const built = s.read(`meta:${metaKey}`, () => tx.getMeta(metaKey)) === signature;
  if (built && recorded) return list;
  if (!built) {
    const all = s.read(`all:${decl.type}`, () => tx.allResources(decl.type));
    tx.clearIndex(decl.type, decl.name);
    for (const r of all) tx.putResource(r, { remove: [], add: builtKeys(r, decl) });
    tx.setMeta(metaKey, signature);
  }
  const declared = withDeclaration(list, decl);
  tx.setMeta(INDEXES_META_KEY, declared);
  return declared;
}
