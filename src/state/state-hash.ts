// The state hash: SHA-256 over the canonical JSON of every live resource in (type, id) order.
// A replayed log and the live state it came from must give the same hash.
import { createHash } from 'node:crypto';
import { canonicalJson } from '../log/canonical-json.js';
import type { Resource } from './resource.js';

export function stateHash(liveInOrder: Iterable<Resource>): string;
export function stateHash(liveInOrder: AsyncIterable<Resource>): Promise<string>;
export function stateHash(
  liveInOrder: Iterable<Resource> | AsyncIterable<Resource>,
): string | Promise<string> {
  const hash = createHash('sha256');
  const add = (r: Resource): void => {
    if (r.deleted) return;
    hash.update(canonicalJson({ type: r.type, id: r.id, version: r.version, fields: r.fields }));
    hash.update('\n');
  };
  if (Symbol.iterator in liveInOrder) {
    for (const r of liveInOrder) add(r);
    return `sha256:${hash.digest('hex')}`;
  }
  return (async () => {
    for await (const r of liveInOrder) add(r);
    return `sha256:${hash.digest('hex')}`;
  })();
}

/**
 * Byte order of the UTF-8 encodings — SQLite's BINARY collation, i.e. code point order — so
 * every backend and replay walk resources in the same order. UTF-16 code units agree with it
 * except that surrogates (code points above U+FFFF) must sort after U+E000–U+FFFF.
 */
export function compareKeys(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return codePointRank(x) - codePointRank(y);
  }
  return a.length - b.length;
}

function codePointRank(unit: number): number {
  if (unit >= 0xe000) return unit - 0x800;
  if (unit >= 0xd800) return unit + 0x2000;
  return unit;
}

export function compareResources(a: Resource, b: Resource): number {
  return compareKeys(a.type, b.type) || compareKeys(a.id, b.id);
}
