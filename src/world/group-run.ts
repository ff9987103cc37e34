// One section for a group of waiting actions: one catch-up, then each decide in arrival order
// against the view the ones before it left, its writes staged with the entries its commit hooks add.
// A member that throws (or is refused) has what it staged taken back, so the next sees the view as
// if it never ran and the log stays dense; a member that must wait for a read lets the others run,
// so every read of the group leaves in one round trip.
import { TwinError } from '../errors.js';
import type { ChainHead } from '../log/chain.js';
import type { Entry, Write } from '../log/write.js';
import type { ReadView } from '../state/read-view.js';
import { resourceKey, type Resource } from '../state/resource.js';
import { MAX_GROUP, type ActionQueue, type Waiting } from './action-queue.js';
import { normalizeDecision as normalize, type Decision } from './decision.js';
import { MISS, nestedError, type Section } from './section.js';
import { appendOne, type StageContext } from './stage-entry.js';
import type { TwinState } from './twin-state.js';
import { sectionView } from './twin-view.js';

export type AnyDecide = (view: ReadView) => Decision<unknown>;

/** What one member of a group got: its own result, or its own refusal. */
type MemberOutcome =
  | { ok: true; result: unknown; skipped: boolean; entries: Entry[] }
  | { ok: false; error: unknown; deferred?: true };

export interface GroupOutcome {
  readonly outcomes: MemberOutcome[];
  readonly staged: Map<string, Resource>;
  /** What the group put, with the index keys each put moved (TwinState.committed). */
  readonly puts: Section['puts'];
  /** The newest entry appended and its hash, when any member appended. */
  readonly last: ChainHead | undefined;
}

/** A commit hook as a group run calls it: the writes it adds to the entries a decide appended. */
interface WithinHook {
  readonly name: string;
  within(
    decided: readonly Entry[],
    view: ReadView,
    before: (entry: Entry) => Resource | undefined,
  ): readonly Write[];
}

/** Commit hooks as the twin keeps them; `twin` is handed to each (kept opaque here). */
interface HooksOf<T> {
  readonly name: string;
  withinCommit?(
    entries: readonly Entry[],
    view: ReadView,
    twin: T,
    before: (entry: Entry) => Resource | undefined,
  ): readonly Write[];
}

export function groupRunOf<T>(
  state: TwinState,
  staging: StageContext,
  hooks: readonly HooksOf<T>[],
  twin: T,
): GroupRun {
  return {
    state,
    staging,
    hooks: hooks.flatMap((hook) =>
      hook.withinCommit === undefined
        ? []
        : [
            {
              name: hook.name,
              within: (decided, view, before) => hook.withinCommit!(decided, view, twin, before),
            },
          ],
    ),
  };
}

/** What a group run needs of its twin. */
export interface GroupRun {
  readonly state: TwinState;
  readonly staging: StageContext;
  readonly hooks: readonly WithinHook[];
}

/**
 * Decides every member in turn after one catch-up. A member that throws (or is refused) has what
 * it staged taken back, so the next sees the view as if it never ran and the log stays dense.
 * Members from `joinedFrom` on joined late: one that needs what is not loaded is deferred (taken
 * back, nothing asked of the store), and so is every one after it, whose draws would otherwise
 * take the ids it drew.
 */
export function decideGroup(
  run: GroupRun,
  s: Section,
  decides: readonly AnyDecide[],
  joinedFrom = decides.length,
): GroupOutcome {
  const head = run.state.catchUp(s, true);
  run.state.adoptIndexes(s);
  // Once a run must wait for a load, the members after it still run, so that every read the
  // group needs leaves in the same round trip; only a run that waited for nothing commits.
  let waiting = s.missed;
  let deferring = false;
  const outcomes = decides.map((decide, i): MemberOutcome => {
    const joined = i >= joinedFrom;
    if (joined && (deferring || waiting)) return { ok: false, error: MISS, deferred: true };
    s.noLoads = joined;
    const at = { appends: s.appends.length, puts: s.puts.length };
    s.missed = false;
    try {
      const outcome = decideAndFold(run, s, head, decide);
      if (s.nested) throw nestedError(run.state.name);
      return { ok: true, ...outcome };
    } catch (error) {
      s.nested = false;
      takeBack(s, at.appends, at.puts);
      if (joined && (error === MISS || s.missed)) {
        deferring = true;
        return { ok: false, error: MISS, deferred: true };
      }
      if (error === MISS || s.missed) waiting = true;
      return { ok: false, error };
    } finally {
      s.missed = waiting;
      s.noLoads = false;
    }
  });
  if (waiting) throw MISS;
  return { outcomes, staged: s.staged, puts: s.puts, last: lastOf(s) };
}

/**
 * The body of a group's section. On each run after the first — over an asynchronous store, once
 * the section's reads have landed and the twin's lock is held — the actions that arrived meanwhile
 * join the group at its end, so a section that waited for the lock (another process held it)
 * carries what came while it waited instead of leaving it for one more section. A joiner that
 * would need another read is put back, first in line for the next section, and the run goes again
 * without it (no round trip: nothing new is asked), so the ids it drew are handed back to be drawn
 * as if it never joined. `group` is updated in place: the outcomes answer it member by member.
 * With `joining` false nobody joins (a member tried again alone after its group's section failed).
 */
export function joiningGroup<R>(
  queue: Pick<ActionQueue<AnyDecide, R>, 'join' | 'putBack'>,
  group: Waiting<AnyDecide, R>[],
  decide: (s: Section, decides: readonly AnyDecide[], joinedFrom: number) => GroupOutcome,
  joining = true,
): (s: Section) => GroupOutcome {
  let runs = 0;
  return (s) => {
    const joinedFrom = group.length;
    if (runs++ > 0 && joining) group.push(...queue.join(group[0]!.scope, MAX_GROUP - group.length));
    let done: GroupOutcome;
    try {
      done = decide(
        s,
        group.map((g) => g.action),
        joinedFrom,
      );
    } catch (error) {
      // Joiners run only after every member that waits: none of them drew anything.
      queue.putBack(group.splice(joinedFrom));
      throw error;
    }
    const kept = done.outcomes.findIndex((o, i) => i >= joinedFrom && !o.ok && o.deferred);
    if (kept < 0) return done;
    queue.putBack(group.splice(kept));
    joining = false;
    throw MISS;
  };
}

function decideAndFold<T>(
  run: GroupRun,
  s: Section,
  head: number,
  decide: (view: ReadView) => Decision<T>,
): { result: T; skipped: boolean; entries: Entry[] } {
  const decision = decide(sectionView(run.state, s, head + s.appends.length)) as
    Decision<T> | PromiseLike<unknown>;
  if (
    decision !== null &&
    typeof decision === 'object' &&
    typeof (decision as PromiseLike<unknown>).then === 'function'
  ) {
    throw new TwinError(
      'ASYNC_DECIDE',
      `twin "${run.state.name}": decide returned a promise; decide must be synchronous — do the async work first, then decide`,
    );
  }
  if (s.missed) throw MISS;
  const { writes, result, skipped } = normalize(decision as Decision<T>);
  if (skipped) return { result, skipped, entries: [] };
  const decided = writes.map((w, i) =>
    appendOne(run.state, run.staging, s, head, w, writes.length === 1 ? 'write' : `writes[${i}]`),
  );
  const entries = [...decided];
  for (const hook of run.hooks) {
    const extra = hook.within(decided, sectionView(run.state, s, head + s.appends.length), (e) =>
      s.beforeImages.get(e.seq),
    );
    extra.forEach((w, i) =>
      entries.push(appendOne(run.state, run.staging, s, head, w, `${hook.name}[${i}]`)),
    );
  }
  return { result, skipped, entries };
}

/**
 * Takes back what a member staged: its entries, its puts, and each resource it staged as it was
 * staged before (or not at all). Keys keep their place in `staged`, so the view is as it was.
 */
function takeBack(s: Section, appends: number, puts: number): void {
  for (let i = s.puts.length - 1; i >= puts; i--) {
    const { type, id } = s.puts[i]!.resource;
    let earlier: Resource | undefined;
    for (let j = puts - 1; j >= 0 && earlier === undefined; j--) {
      const r = s.puts[j]!.resource;
      if (r.type === type && r.id === id) earlier = r;
    }
    if (earlier === undefined) s.staged.delete(resourceKey(type, id));
    else s.staged.set(resourceKey(type, id), earlier);
  }
  s.appends.length = appends;
  s.puts.length = puts;
}

function lastOf(s: Section): ChainHead | undefined {
  const last = s.appends[s.appends.length - 1];
  return last === undefined ? undefined : { seq: last.entry.seq, hash: last.hash };
}
