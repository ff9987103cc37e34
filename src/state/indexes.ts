// Indexed lookups declared per resource type, as data: the keys of a resource are the values
// found at a field path (one key per array element), so "endpoints by event type" never scans.
import { TwinError } from '../errors.js';
import { didYouMean } from '../did-you-mean.js';
import type { Resource } from './resource.js';

/**
 * The index every piece of claimable work declares on its `dueAt` field (an ISO time, so byte order
 * is time order). Defined this low so the kernel can tell, when staging a write, that it makes work
 * due now (a key at or before the write's time): what wakes idle workers on a store that can.
 */
export const DUE_INDEX = 'twinworld:due';

export interface IndexDeclaration {
  readonly type: string;
  readonly name: string;
  /** Dotted path into `fields`; an array value yields one key per element. */
  readonly field: string;
  /** The key a resource is kept under when the field is absent, null or an empty array. */
  readonly emptyKey?: string;
  /**
   * Makes the index ordered (ordered-index.ts): a dotted path to a number (e.g. `created`); each
   * key is then kept with that number and the seq of the entry that put the resource under it, so
   * `range` reads one key's resources in that order, a page at a time.
   */
  readonly orderBy?: string;
  /**
   * `lower`: keys are kept in lower case, and a lookup's key is lowered too, so it finds the
   * resource whatever the case asked (GitHub's logins and repository names). Plain indexes only.
   */
  readonly fold?: 'lower';
}

export interface IndexKey {
  readonly name: string;
  readonly key: string;
}

const DECLARATION_KEYS = ['type', 'name', 'field', 'emptyKey', 'orderBy', 'fold'];

export function validateIndex(decl: IndexDeclaration): IndexDeclaration {
  // A misspelt option (emptyKye, orderby) was dropped: the index was built, without it.
  if (decl !== null && typeof decl === 'object')
    for (const key of Object.keys(decl))
      if (!DECLARATION_KEYS.includes(key))
        throw new TwinError(
          'INVALID_ARGUMENT',
          `index.${key} is not an index option${didYouMean(key, DECLARATION_KEYS)}; a declaration takes ${DECLARATION_KEYS.join(', ')}`,
          { path: `index.${key}` },
        );
  for (const key of ['type', 'name', 'field'] as const) {
    if (typeof decl?.[key] !== 'string' || decl[key].length === 0) {
      throw new TwinError(
        'INVALID_ARGUMENT',
        `index.${key} must be a non-empty string, e.g. {type: "endpoint", name: "byEvent", field: "enabled_events"}`,
        { path: `index.${key}` },
      );
    }
  }
  if (decl.emptyKey !== undefined && typeof decl.emptyKey !== 'string') {
    throw new TwinError(
      'INVALID_ARGUMENT',
      'index.emptyKey must be a string when given, e.g. "*"',
      {
        path: 'index.emptyKey',
      },
    );
  }
  if (decl.orderBy !== undefined && (typeof decl.orderBy !== 'string' || decl.orderBy === ''))
    throw new TwinError(
      'INVALID_ARGUMENT',
      'index.orderBy must be a non-empty field path when given, e.g. "created"',
      { path: 'index.orderBy' },
    );
  if (decl.fold !== undefined && decl.fold !== 'lower')
    throw new TwinError('INVALID_ARGUMENT', 'index.fold must be "lower" when given', {
      path: 'index.fold',
    });
  if (decl.fold !== undefined && decl.orderBy !== undefined)
    throw new TwinError(
      'INVALID_ARGUMENT',
      'index.fold is for plain indexes: an ordered index (orderBy) keeps its keys as given',
      { path: 'index.fold' },
    );
  return Object.freeze({
    type: decl.type,
    name: decl.name,
    field: decl.field,
    ...(decl.emptyKey === undefined ? {} : { emptyKey: decl.emptyKey }),
    ...(decl.orderBy === undefined ? {} : { orderBy: decl.orderBy }),
    ...(decl.fold === undefined ? {} : { fold: decl.fold }),
  });
}

/** A key as `decl` keeps it (and as a lookup of `decl` asks for it). */
export function foldedKey(decl: Pick<IndexDeclaration, 'fold'>, key: string): string {
  return decl.fold === 'lower' ? key.toLowerCase() : key;
}

/** The value at a dotted path into a resource's fields. */
export function fieldAt(resource: Resource, path: string): unknown {
  let value: unknown = resource.fields;
  for (const part of path.split('.')) {
    value =
      value !== null && typeof value === 'object' && !Array.isArray(value)
        ? (value as Record<string, unknown>)[part]
        : undefined;
  }
  return value;
}

function keyOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}

/** A resource's keys in the given indexes; an ordered index's keys here lack their order suffix. */
export function indexKeys(
  resource: Resource | undefined,
  decls: readonly IndexDeclaration[],
): IndexKey[] {
  if (resource === undefined || resource.deleted || decls.length === 0) return [];
  const keys: IndexKey[] = [];
  for (const decl of decls) {
    const value = fieldAt(resource, decl.field);
    const values = Array.isArray(value) ? value : [value];
    if (
      decl.emptyKey !== undefined &&
      (value === undefined || value === null || values.length === 0)
    ) {
      keys.push({ name: decl.name, key: decl.emptyKey });
      continue;
    }
    const seen = new Set<string>();
    for (const v of values) {
      const raw = keyOf(v);
      const key = raw === undefined ? undefined : foldedKey(decl, raw);
      if (key !== undefined && !seen.has(key)) {
        seen.add(key);
        keys.push({ name: decl.name, key });
      }
    }
  }
  return keys;
}

/**
 * The longest key an index keeps, in UTF-8 bytes (an ordered index's with its order stamps).
 * PostgreSQL's B-tree refuses a row past about 2.7 kB, and the key shares it with the world, twin,
 * type, index name and id; every backend refuses the same writes, so a walk runs alike on each.
 */
export const MAX_INDEX_KEY_BYTES = 1024;

/** Refuses a write that would keep `resource` under a key longer than MAX_INDEX_KEY_BYTES. */
export function checkIndexKeys(
  resource: Resource,
  keys: readonly IndexKey[],
  decls: readonly IndexDeclaration[],
): void {
  for (const { name, key } of keys) {
    // UTF-8 takes at most 3 bytes per UTF-16 unit: short keys need no exact count.
    if (key.length * 3 <= MAX_INDEX_KEY_BYTES) continue;
    const bytes = Buffer.byteLength(key, 'utf8');
    if (bytes <= MAX_INDEX_KEY_BYTES) continue;
    const field = decls.find((d) => d.name === name)?.field ?? name;
    throw new TwinError(
      'INVALID_WRITE',
      `${resource.type} "${resource.id}": index "${name}" would keep it under a key of ${bytes} bytes taken from fields.${field}; index keys are at most ${MAX_INDEX_KEY_BYTES} bytes of UTF-8 — shorten the value, or index another field`,
      { path: `fields.${field}` },
    );
  }
}

export function indexSignature(decls: readonly IndexDeclaration[]): string {
  return JSON.stringify(
    [...decls]
      .map((d) => {
        const row: (string | { orderBy?: string; fold?: string })[] =
          d.emptyKey === undefined
            ? [d.type, d.name, d.field]
            : [d.type, d.name, d.field, d.emptyKey];
        // Last and an object, so plain declarations keep the signature they always had.
        if (d.orderBy !== undefined) row.push({ orderBy: d.orderBy });
        else if (d.fold !== undefined) row.push({ fold: d.fold });
        return row;
      })
      .sort(),
  );
}
