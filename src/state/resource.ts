// Resources and the per-resource fold: the next value of one resource is produced from the
// previous with immer, so unchanged parts are shared and every value stays frozen.
import { freeze, produce } from 'immer';
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

export function freezeResource(resource: Resource): Resource {
  return freeze(resource, true);
}

function mergeFields(prev: Resource | undefined, type: string, id: string, seq: number, fields: JsonObject): Resource {
  if (prev === undefined || prev.deleted) {
    return freeze({ type, id, version: seq, deleted: false, fields }, true);
  }
  return produce(prev, (draft) => {
    draft.version = seq;
    Object.assign(draft.fields, fields);
  });
}

function replaceFields(prev: Resource | undefined, type: string, id: string, seq: number, fields: JsonObject): Resource {
  void prev;
  return freeze({ type, id, version: seq, deleted: false, fields }, true);
}

function markDeleted(prev: Resource | undefined, type: string, id: string, seq: number): Resource {
  if (prev === undefined) return freeze({ type, id, version: seq, deleted: true, fields: {} }, true);
  return produce(prev, (draft) => {
    draft.version = seq;
    draft.deleted = true;
  });
}

/**
 * The resources one entry changes, in the order they change. Total by design: replaying any
 * valid log always succeeds, so a rule such as "create on an existing id" is the author's to
 * check in `decide`, never the fold's to reject.
 */
export function foldEntry(entry: Entry, get: (type: string, id: string) => Resource | undefined): Resource[] {
  const out: Resource[] = [];
  const staged = new Map<string, Resource>();
  const current = (type: string, id: string): Resource | undefined => staged.get(resourceKey(type, id)) ?? get(type, id);
  const put = (next: Resource): void => {
    staged.set(resourceKey(next.type, next.id), next);
    out.push(next);
  };
  const { subjectType: type, subjectId: id, seq } = entry;
  put(entry.delete === true ? markDeleted(current(type, id), type, id, seq) : mergeFields(current(type, id), type, id, seq, entry.fields ?? {}));
  const projection = entry.projection;
  if (projection !== undefined) {
    for (const p of projection.creates ?? []) put(replaceFields(current(p.type, p.id), p.type, p.id, seq, p.fields ?? {}));
    for (const p of projection.updates ?? []) put(mergeFields(current(p.type, p.id), p.type, p.id, seq, p.fields ?? {}));
    for (const p of projection.deletes ?? []) put(markDeleted(current(p.type, p.id), p.type, p.id, seq));
  }
  return out;
}
