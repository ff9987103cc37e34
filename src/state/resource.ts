// Resources and the per-resource fold: the next value of one resource is made from the previous
// one, sharing its unchanged parts, and every value live twins hand out is frozen.
import type { JsonObject } from '../log/json-value.js';
import type { Entry } from '../log/write.js';

export interface Resource {
  readonly type: string;
  readonly id: string;
  /** seq of the last entry that touched it */
  readonly version: number;
  readonly deleted: boolean;
  readonly fields: Readonly<JsonObject>;
}

export function resourceKey(type: string, id: string): string {
  return `${type}\u0000${id}`;
}

/**
 * Freezes a value and everything it holds. A frozen object's contents are frozen already (this is
 * the only place values are frozen), so shared parts of a previous version are not walked again.
 */
function deepFreeze<T>(value: T): T {
  // Primitives (and null) count as frozen, so this also ends the walk at every leaf.
  const node = value as object;
  if (Object.isFrozen(node)) return value;
  Object.freeze(node);
  for (const key of Object.keys(node)) deepFreeze((node as Record<string, unknown>)[key]);
  return value;
}

export function freezeResource(resource: Resource): Resource {
  return deepFreeze(resource);
}

/**
 * How a next resource value is made. Live twins freeze every value and share unchanged parts with
 * the previous version (what immer's produce gave them, without its drafts: a test holds the two to
 * equal values). Replay, whose values nobody else ever sees, builds plain objects the same way
 * without freezing. All give equal values; tests compare their hashes.
 */
export interface ResourceProducer {
  merge(
    prev: Resource | undefined,
    type: string,
    id: string,
    seq: number,
    fields: JsonObject,
  ): Resource;
  replace(type: string, id: string, seq: number, fields: JsonObject): Resource;
  markDeleted(prev: Resource | undefined, type: string, id: string, seq: number): Resource;
}

export const frozenProducer: ResourceProducer = {
  merge(prev, type, id, seq, fields) {
    if (prev === undefined || prev.deleted)
      return deepFreeze({ type, id, version: seq, deleted: false, fields });
    // The entry's values are its own copies; the previous version's are frozen and shared.
    for (const key of Object.keys(fields)) deepFreeze(fields[key]);
    return Object.freeze({
      ...prev,
      version: seq,
      fields: Object.freeze({ ...prev.fields, ...fields }),
    });
  },
  replace(type, id, seq, fields) {
    return deepFreeze({ type, id, version: seq, deleted: false, fields });
  },
  markDeleted(prev, type, id, seq) {
    if (prev === undefined)
      return deepFreeze({ type, id, version: seq, deleted: true, fields: {} });
    return Object.freeze({ ...prev, version: seq, deleted: true });
  },
};

export const plainProducer: ResourceProducer = {
  merge(prev, type, id, seq, fields) {
    if (prev === undefined || prev.deleted)
      return { type, id, version: seq, deleted: false, fields };
    return { type, id, version: seq, deleted: false, fields: { ...prev.fields, ...fields } };
  },
  replace(type, id, seq, fields) {
    return { type, id, version: seq, deleted: false, fields };
  },
  markDeleted(prev, type, id, seq) {
    return { type, id, version: seq, deleted: true, fields: prev?.fields ?? {} };
  },
};

/**
 * The resources one entry changes, in the order they change. Total by design: replaying any
 * valid log always succeeds, so a rule such as "create on an existing id" is the author's to
 * check in `decide`, never the fold's to reject.
 */
export function foldEntry(
  entry: Entry,
  get: (type: string, id: string) => Resource | undefined,
  producer: ResourceProducer = frozenProducer,
): Resource[] {
  const { subjectType: type, subjectId: id, seq } = entry;
  const subject =
    entry.delete === true
      ? producer.markDeleted(get(type, id), type, id, seq)
      : producer.merge(get(type, id), type, id, seq, entry.fields ?? {});
  const projection = entry.projection;
  if (projection === undefined) return [subject];
  // A projection may touch the subject or one resource twice: each step sees the one before.
  const out: Resource[] = [subject];
  const staged = new Map<string, Resource>([[resourceKey(type, id), subject]]);
  const current = (t: string, i: string): Resource | undefined =>
    staged.get(resourceKey(t, i)) ?? get(t, i);
  const put = (next: Resource): void => {
    staged.set(resourceKey(next.type, next.id), next);
    out.push(next);
  };
  for (const p of projection.creates ?? [])
    put(producer.replace(p.type, p.id, seq, p.fields ?? {}));
  for (const p of projection.updates ?? [])
    put(producer.merge(current(p.type, p.id), p.type, p.id, seq, p.fields ?? {}));
  for (const p of projection.deletes ?? [])
    put(producer.markDeleted(current(p.type, p.id), p.type, p.id, seq));
  return out;
}
