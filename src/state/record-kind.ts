// Record kinds: one declaration per kind of record a twin keeps — its type string, its id builder,
// the type of its fields and its indexes — giving typed reads and writes over any read view. The
// one cast between stored JSON and a record's typed fields lives here, and nowhere else: a
// record's fields are written only through its kind (or by a pack's operations, validated there),
// so reading them back as that type is what was written.
import { didYouMean } from '../did-you-mean.js';
import { describeValue, TwinError } from '../errors.js';
import type { JsonObject } from '../log/json-value.js';
import type { Write } from '../log/write.js';
import type { IndexDeclaration } from './indexes.js';
import type { ReadView } from './read-view.js';
import type { Resource } from './resource.js';

/** What declaring a kind's indexes needs of a twin. */
interface IndexHost {
  declareIndex(decl: IndexDeclaration): void;
}

/** Fields of a record as its kind types them: any object shape (interfaces included). */
export type RecordFields = object;

export interface RecordKind<F extends RecordFields, A extends readonly unknown[] = [string]> {
  readonly type: string;
  /** Index declarations, by name (the field path and empty key of each). */
  readonly indexes: readonly IndexDeclaration[];
  /** The record's id from its parts (the identity when the kind takes the id as it is). */
  id(...parts: A): string;
  /** A resource's fields, typed. The resource must be of this kind. */
  of(resource: Resource): F;
  /** Fields of this kind given as JSON (a render context's subject, a merge of a record and a patch), typed. */
  from(fields: JsonObject): F;
  /** The live record with this id (a number is its decimal string), typed; undefined if never written or deleted. */
  read(view: Pick<ReadView, 'get'>, id: string | number): F | undefined;
  /** The record's fields as written, even a tombstone's (`view.get(type, id)?.fields`). */
  fieldsAt(view: Pick<ReadView, 'get'>, id: string | number): F | undefined;
  /** Live records of this kind, ordered by id. */
  list(view: Pick<ReadView, 'list'>): F[];
  /** Live records whose index `name` holds `key`. */
  lookup(view: Pick<ReadView, 'lookup'>, name: string, key: string): F[];
  /** Typed fields (whole or a patch) as the JSON a write carries. */
  json(fields: Partial<F>): JsonObject;
  /** A write of this kind: `fields` merged into the record `id` by `operation`. */
  write(
    operation: string,
    id: string,
    fields: Partial<F>,
    extra?: Omit<Write, 'operation' | 'subjectType' | 'subjectId' | 'fields'>,
  ): Write;
  /** Declares this kind's indexes on a twin (idempotent). */
  declareOn(twin: IndexHost): void;
}

export interface RecordKindSpec<A extends readonly unknown[]> {
  readonly type: string;
  /** Builds the id from its parts; absent, the id is the one part given. */
  readonly id?: (...parts: A) => string;
  /** Indexes of this kind: name → field path (or {field, emptyKey}). */
  readonly indexes?: Readonly<
    Record<string, string | { field: string; emptyKey?: string; fold?: 'lower' }>
  >;
}

/** Declares a record kind. `F` is the type of its fields; `A` the parts its id is built from. */
const SPEC_KEYS = ['type', 'id', 'indexes'];

/**
 * A kind is declared once, at import: what it cannot use is refused there, where recordKind()
 * failed as a destructuring TypeError and a misspelt "indexs" left the kind with no indexes.
 */
function checkSpec(spec: unknown): void {
  const refuse = (path: string, message: string): never => {
    throw new TwinError('INVALID_ARGUMENT', `recordKind(spec): ${message}`, { path });
  };
  if (typeof spec !== 'object' || spec === null || Array.isArray(spec))
    refuse('spec', `spec must be an object {type, id?, indexes?}, got ${describeValue(spec)}`);
  const given = spec as Record<string, unknown>;
  for (const key of Object.keys(given))
    if (!SPEC_KEYS.includes(key))
      refuse(
        `spec.${key}`,
        `unknown key "${key}"${didYouMean(key, SPEC_KEYS)}; a kind takes ${SPEC_KEYS.join(', ')}`,
      );
  if (typeof given.type !== 'string' || given.type === '')
    refuse('spec.type', `type must be a non-empty string, got ${describeValue(given.type)}`);
  if (given.id !== undefined && typeof given.id !== 'function')
    refuse('spec.id', `id must be a function (...parts) => string, got ${describeValue(given.id)}`);
  const { indexes } = given;
  if (indexes === undefined) return;
  if (typeof indexes !== 'object' || indexes === null || Array.isArray(indexes))
    refuse(
      'spec.indexes',
      `indexes must be an object {name: field} (or {name: {field, emptyKey?}}), got ${describeValue(indexes)}`,
    );
  for (const [name, at] of Object.entries(indexes as Record<string, unknown>))
    if (typeof at !== 'string' && typeof (at as { field?: unknown } | null)?.field !== 'string')
      refuse(
        `spec.indexes.${name}`,
        `index "${name}" must name a field path (or {field, emptyKey?}), got ${describeValue(at)}`,
      );
}

export function recordKind<F extends RecordFields, A extends readonly unknown[] = [string]>(
  spec: RecordKindSpec<A>,
): RecordKind<F, A> {
  checkSpec(spec);
  const { type } = spec;
  const indexes: IndexDeclaration[] = Object.entries(spec.indexes ?? {}).map(([name, at]) =>
    typeof at === 'string'
      ? { type, name, field: at }
      : {
          type,
          name,
          field: at.field,
          ...(at.emptyKey === undefined ? {} : { emptyKey: at.emptyKey }),
          ...(at.fold === undefined ? {} : { fold: at.fold }),
        },
  );
  // The one cast: stored JSON to the kind's fields. Sound as long as the kind's records are
  // written as F (through `json`/`write`, or by the operations that own them).
  const typed = (fields: JsonObject): F => fields as unknown as F;
  const of = (r: Resource): F => typed(r.fields);
  // And the cast the other way: F's values are JSON by construction (they came from, or go to,
  // the log), but an interface is not assignable to JsonObject's index signature.
  const toJson = (fields: Partial<F>): JsonObject => fields as unknown as JsonObject;
  const build = spec.id ?? ((...parts: A) => String(parts[0]));
  return Object.freeze({
    type,
    indexes,
    id: build,
    of,
    from: typed,
    read: (view, id) => {
      const r = view.get(type, String(id));
      return r === undefined || r.deleted ? undefined : of(r);
    },
    fieldsAt: (view, id) => {
      const r = view.get(type, String(id));
      return r === undefined ? undefined : of(r);
    },
    list: (view) => view.list(type).map(of),
    lookup: (view, name, key) => view.lookup(type, name, key).map(of),
    json: toJson,
    write: (operation, id, fields, extra = {}) => ({
      ...extra,
      operation,
      subjectType: type,
      subjectId: id,
      fields: toJson(fields),
    }),
    declareOn: (twin) => {
      for (const decl of indexes) twin.declareIndex(decl);
    },
  } satisfies RecordKind<F, A>);
}
