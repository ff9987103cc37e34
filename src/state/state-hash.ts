// The state hash: SHA-256 over the canonical JSON of every live resource in (type, id) order.
// A replayed log and the live state it came from must give the same hash.
import { createHash } from 'node:crypto';
import { canonicalJson } from '../log/canonical-json.js';
import type { Resource } from './resource.js';

export function stateHash(liveInOrder: Iterable<Resource>): string {
  const hash = createHash('sha256');
  for (const r of liveInOrder) {
    if (r.deleted) continue;
    hash.update(canonicalJson({ type: r.type, id: r.id, version: r.version, fields: r.fields }));
    hash.update('\n');
  }
  return `sha256:${hash.digest('hex')}`;
}

/**
 * Byte order of the UTF-8 encodings — SQLite's BINARY collation — so every backend and replay
 * walk resources in the same order. UTF-16 order agrees except around surrogates, hence the check.
 */
export function compareKeys(a: string, b: string): number {
  if (a === b) return 0;
  if (/[\ud800-\uffff]/.test(a) || /[\ud800-\uffff]/.test(b)) return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
  return a < b ? -1 : 1;
}

export function compareResources(a: Resource, b: Resource): number {
  return compareKeys(a.type, b.type) || compareKeys(a.id, b.id);
}
