// Repeats of a known delivery, counted on the record they repeat instead of a receipt each. A vendor
// resends, and anyone who captured one validly signed packet can send it again and again: each such
// repeat — the same key again (duplicate), its signed content under another delivery id (replay),
// the same key while it runs (in progress) — is answered as before, but the log keeps one aggregate
// per record and window of the world clock, as refused packets are counted (refusal-windows.ts):
// written at the window's first repeat, so an operator sees it at once, and topped up with the rest
// of the window's count when a later repeat finds the window over, or when the engine stops. The
// record's `repeats` field holds the totals; several processes add their counts up. A crash loses at
// most the counts of the windows still open in that process, never a decision.
import type { Write } from '../log/write.js';
import type { ReadView } from '../state/read-view.js';
import { isoAt } from '../world/clock.js';
import { type Repeat } from './receive.js';
import {
  readRecord,
  triggerRecordKind,
  type RepeatKind,
  type RepeatTotals,
} from './trigger-records.js';

export type { Repeat };

interface Pending {
  readonly recordId: string;
  readonly endsAt: number;
  count: number;
  byKind: Partial<Record<RepeatKind, number>>;
  firstAt: string;
  lastAt: string;
  lastKind: RepeatKind;
  lastDedupeKey: string;
}

export type RepeatDelta = Readonly<Pending>;

export class RepeatCounter {
  private readonly open = new Map<string, Pending>();

  constructor(readonly windowMs: number) {}

  /** Counts one repeat at `now`; answers the deltas to write now (see the header). */
  count(repeat: Repeat, now: number): RepeatDelta[] {
    const due = this.ended(now);
    const start = Math.floor(now / this.windowMs) * this.windowMs;
    const key = `${repeat.recordId}\u0000${start}`;
    const nowIso = isoAt(now);
    let pending = this.open.get(key);
    const first = pending === undefined;
    if (pending === undefined) {
      pending = {
        recordId: repeat.recordId,
        endsAt: start + this.windowMs,
        count: 0,
        byKind: {},
        firstAt: nowIso,
        lastAt: nowIso,
        lastKind: repeat.kind,
        lastDedupeKey: repeat.dedupeKey,
      };
      this.open.set(key, pending);
    }
    pending.count++;
    pending.byKind[repeat.kind] = (pending.byKind[repeat.kind] ?? 0) + 1;
    pending.lastAt = nowIso;
    pending.lastKind = repeat.kind;
    pending.lastDedupeKey = repeat.dedupeKey;
    if (first) due.push(this.take(pending));
    return due;
  }

  /** The unwritten counts of every window, ended or not (the engine is stopping). */
  drain(): RepeatDelta[] {
    const out = [...this.open.values()].filter((p) => p.count > 0).map((p) => this.take(p));
    this.open.clear();
    return out;
  }

  private ended(now: number): RepeatDelta[] {
    const out: RepeatDelta[] = [];
    for (const [key, pending] of this.open) {
      if (pending.endsAt > now) continue;
      this.open.delete(key);
      if (pending.count > 0) out.push(this.take(pending));
    }
    return out;
  }

  private take(pending: Pending): RepeatDelta {
    const delta = { ...pending, byKind: { ...pending.byKind } };
    pending.count = 0;
    pending.byKind = {};
    return delta;
  }
}

/**
 * One `trigger.repeats` write per record, merged into its stored totals (other processes count the
 * same records). A record pruned meanwhile gets nothing: a count is never a reason to recreate one.
 */
export function repeatWrites(view: ReadView, deltas: readonly RepeatDelta[]): Write[] {
  const merged = new Map<string, RepeatTotals>();
  for (const d of deltas) {
    let stored = merged.get(d.recordId);
    if (stored === undefined) {
      const record = readRecord(view, d.recordId);
      if (record === undefined) continue;
      stored = record.repeats;
    }
    const byKind: Partial<Record<RepeatKind, number>> = { ...(stored?.byKind ?? {}) };
    for (const [kind, n] of Object.entries(d.byKind) as [RepeatKind, number][])
      byKind[kind] = (byKind[kind] ?? 0) + n;
    const last =
      stored === undefined || d.lastAt >= stored.lastAt
        ? { lastAt: d.lastAt, lastKind: d.lastKind, lastDedupeKey: d.lastDedupeKey }
        : { lastAt: stored.lastAt, lastKind: stored.lastKind, lastDedupeKey: stored.lastDedupeKey };
    merged.set(d.recordId, {
      count: (stored?.count ?? 0) + d.count,
      byKind,
      firstAt: stored === undefined || d.firstAt < stored.firstAt ? d.firstAt : stored.firstAt,
      ...last,
    });
  }
  return [...merged].map(([id, totals]) =>
    triggerRecordKind.write('trigger.repeats', id, { repeats: totals }, { actor: 'system' }),
  );
}
