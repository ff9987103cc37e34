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

export function compareResources(a: Resource, b: Resource): number {
  if (a.type !== b.type) return a.type < b.type ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}
