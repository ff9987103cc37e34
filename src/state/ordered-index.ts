// Keys of an ordered index (IndexDeclaration.orderBy). A resource under key K is kept as
// `K \x01 order \x01 stamp`: its order value and the seq of the entry that put it there, both
// zero-padded, so byte order is (order, stamp) order and a range read under `K \x01` pages through
// one key's resources without reading the rest. The stamp breaks ties in the order value (objects
// made in the same second) by the order they were put there, and is fixed while the key stays.
import { fieldAt, indexKeys, type IndexDeclaration, type IndexKey } from './indexes.js';
import type { Resource } from './resource.js';

const SEP = '\u0001';
const WIDTH = 16;

function pad(n: number): string {
  return String(n).padStart(WIDTH, '0');
}

/**
 * The order value as a key part: a non-negative integer zero-padded, or a string as it is (an ISO
 * time sorts as its text); undefined (no key) otherwise. One index should hold one kind.
 */
function orderPart(resource: Resource, decl: IndexDeclaration): string | undefined {
  const value = fieldAt(resource, decl.orderBy!);
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return pad(value);
  if (typeof value === 'string' && value !== '' && !value.includes(SEP)) return value;
  return undefined;
}

/** Where every row under `key` starts. */
export function orderedPrefix(key: string): string {
  return `${key}${SEP}`;
}

/** Where the rows under `key` with the resource's order value start (its same-order siblings). */
export function orderedSlice(key: string, resource: Resource, decl: IndexDeclaration): string {
  return `${key}${SEP}${orderPart(resource, decl) ?? ''}${SEP}`;
}

/** The resource's keys without their stamps: one per key the declared field yields. */
export function orderedBases(resource: Resource | undefined, decl: IndexDeclaration): string[] {
  if (resource === undefined || resource.deleted) return [];
  const order = orderPart(resource, decl);
  if (order === undefined) return [];
  return indexKeys(resource, [decl]).map((k) => `${k.key}${SEP}${order}${SEP}`);
}

/** A base with its stamp: the key as stored. */
export function stamped(base: string, seq: number): string {
  return `${base}${pad(seq)}`;
}

/** The keys a (re)build gives a resource already there: stamped with its version, its creation unknown. */
export function builtKeys(resource: Resource, decl: IndexDeclaration): IndexKey[] {
  if (decl.orderBy === undefined) return indexKeys(resource, [decl]);
  return orderedBases(resource, decl).map((base) => ({
    name: decl.name,
    key: stamped(base, resource.version),
  }));
}
