// Staging an entry in a section: a write validated and built into the next entry (linked by hash to
// the one before), folded into the resources it changes, with their index keys diffed, all kept on
// the section until its commit.
import { buildEntry, validateWrite, type Entry, type Write } from '../log/write.js';
import { lineHash } from '../log/chain.js';
import {
  checkIndexKeys,
  DUE_INDEX,
  indexKeys,
  type IndexDeclaration,
  type IndexKey,
} from '../state/indexes.js';
import { foldEntry, resourceKey, type Resource } from '../state/resource.js';
import type { IndexDelta } from '../storage/port.js';
import { isoAt, type Clock } from './clock.js';
import type { IdSource } from './ids.js';
import { orderedDelta } from './ordered-delta.js';
import type { Section } from './section.js';
import type { TwinState } from './twin-state.js';

/** What staging needs besides the twin's state. */
export interface StageContext {
  readonly ids: IdSource;
  readonly clock: Clock;
  /** Commit hooks see each entry's subject as it was before: kept only when there are hooks. */
  readonly keepBefore: boolean;
}

const NO_DELTA: IndexDelta = { remove: [], add: [] };

export function appendOne(
  state: TwinState,
  ctx: StageContext,
  s: Section,
  head: number,
  input: Write,
  path: string,
): Entry {
  const write = validateWrite(input, path);
  const before = s.appends[s.appends.length - 1];
  const prev = before === undefined ? state.hashAt(s, head) : before.hash;
  const { entry, line } = buildEntry(
    write,
    {
      seq: head + s.appends.length + 1,
      writeId: ctx.ids.writeId?.(state.name, head + s.appends.length + 1) ?? ctx.ids.ksuid(),
      twin: state.name,
      recordedAt: isoAt(ctx.clock.now()),
      prev,
    },
    path,
  );
  stageEntry(state, ctx, s, entry, line);
  return entry;
}

export function stageEntry(
  state: TwinState,
  ctx: StageContext,
  s: Section,
  entry: Entry,
  body: string,
  hash = lineHash(body),
): void {
  s.appends.push({ entry, body, hash });
  if (ctx.keepBefore)
    s.beforeImages.set(entry.seq, state.resource(s, entry.subjectType, entry.subjectId));
  foldEntry(entry, (t, i) => state.resource(s, t, i)).forEach((next, i) => {
    const decls = state.indexes.of(next.type);
    const delta = decls.length === 0 ? NO_DELTA : deltaOf(state, s, next, decls, entry.seq);
    // foldEntry yields the subject first
    s.puts.push({
      resource: next,
      delta,
      subjectOf: i === 0 ? entry.seq : undefined,
      wakes: delta.add.some((k) => k.name === DUE_INDEX && k.key <= entry.recordedAt),
    });
    s.staged.set(resourceKey(next.type, next.id), next);
  });
}

function deltaOf(
  state: TwinState,
  s: Section,
  next: Resource,
  decls: readonly IndexDeclaration[],
  seq: number,
): IndexDelta {
  const prev = state.resource(s, next.type, next.id);
  const plain = decls.filter((d) => d.orderBy === undefined);
  const delta = diffKeys(indexKeys(prev, plain), indexKeys(next, plain));
  checkIndexKeys(next, delta.add, decls);
  if (plain.length === decls.length) return delta;
  const ordered = orderedDelta(
    s,
    prev,
    next,
    decls.filter((d) => d.orderBy !== undefined),
    seq,
  );
  checkIndexKeys(next, ordered.add, decls);
  return { remove: [...delta.remove, ...ordered.remove], add: [...delta.add, ...ordered.add] };
}

function diffKeys(before: IndexKey[], after: IndexKey[]): IndexDelta {
  const id = (k: IndexKey): string => `${k.name}\u0000${k.key}`;
  const b = new Set(before.map(id));
  const a = new Set(after.map(id));
  return { remove: before.filter((k) => !a.has(id(k))), add: after.filter((k) => !b.has(id(k))) };
}
