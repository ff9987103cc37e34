// Refused packets, counted instead of kept one by one. Anyone can send a forged packet, so a
// refusal must not cost a permanent entry and resource each: refusals are counted per source
// (tenant, scope, source kind, provider, trigger) and window of the world clock, and the log
// keeps one aggregate fact per source and window — written at the window's first refusal, so an
// operator sees it at once, and topped up with the rest of the window's count when a later
// refusal finds the window over, or when the engine stops. A crash loses at most the counts of
// the windows still open in that process, never a decision.
import { sha256Hex } from '../log/canonical-json.js';
import type { Write } from '../log/write.js';
import type { ReadView } from '../state/read-view.js';
import type { Resource } from '../state/resource.js';
import { isoAt } from '../world/clock.js';
import type { Refusal } from './receipts.js';
import { recordKind } from '../state/record-kind.js';

export const REFUSALS_TYPE = 'trigger_refusals';
/** One aggregate per source per minute of world time, at most. */
export const DEFAULT_REFUSAL_WINDOW_MS = 60_000;

export interface RefusalWindowFields {
  readonly tenantId: string;
  readonly scopeId: string | null;
  readonly sourceKind: string | null;
  readonly provider: string | null;
  readonly triggerId: string | null;
  readonly windowStart: string;
  readonly windowEnd: string;
  readonly count: number;
  /** Refusals by error code (BAD_SIGNATURE, STALE_TIMESTAMP, PAYLOAD_TOO_LARGE…). */
  readonly byCode: Readonly<Record<string, number>>;
  /** Sum of the refused bodies' sizes where known; the bodies themselves are never kept. */
  readonly bodyBytes: number;
  readonly firstAt: string;
  readonly lastAt: string;
  readonly lastCode: string;
  readonly lastPath: string | null;
  readonly lastMessage: string;
}

/** What one process has counted for one window and not yet written. */
interface Pending {
  readonly id: string;
  readonly source: Omit<
    RefusalWindowFields,
    | 'count'
    | 'byCode'
    | 'bodyBytes'
    | 'firstAt'
    | 'lastAt'
    | 'lastCode'
    | 'lastPath'
    | 'lastMessage'
  >;
  readonly endsAt: number;
  count: number;
  byCode: Record<string, number>;
  bodyBytes: number;
  firstAt: string;
  lastAt: string;
  lastCode: string;
  lastPath: string | null;
  lastMessage: string;
}

export type RefusalDelta = Readonly<Pending>;

export class RefusalCounter {
  private readonly open = new Map<string, Pending>();

  constructor(readonly windowMs: number = DEFAULT_REFUSAL_WINDOW_MS) {}

  /**
   * Counts one refusal at `now`. Answers the deltas to write now: the first refusal of its window
   * (written at once), and the unwritten rest of every window that has ended.
   */
  count(refusal: Refusal, now: number): RefusalDelta[] {
    const due = this.ended(now);
    const start = Math.floor(now / this.windowMs) * this.windowMs;
    const source = {
      tenantId: refusal.tenantId,
      scopeId: refusal.scopeId ?? null,
      sourceKind: refusal.sourceKind ?? null,
      provider: refusal.provider ?? null,
      triggerId: refusal.triggerId ?? null,
      windowStart: isoAt(start),
      windowEnd: isoAt(start + this.windowMs),
    };
    const id = `rfs_${sha256Hex([source.tenantId, source.scopeId, source.sourceKind, source.provider, source.triggerId, source.windowStart].join('\u0000'))}`;
    const nowIso = isoAt(now);
    let pending = this.open.get(id);
    const first = pending === undefined;
    if (pending === undefined) {
      pending = {
        id,
        source,
        endsAt: start + this.windowMs,
        count: 0,
        byCode: {},
        bodyBytes: 0,
        firstAt: nowIso,
        lastAt: nowIso,
        lastCode: '',
        lastPath: null,
        lastMessage: '',
      };
      this.open.set(id, pending);
    }
    const e = refusal.error;
    pending.count++;
    pending.byCode[e.code] = (pending.byCode[e.code] ?? 0) + 1;
    pending.bodyBytes += refusal.bodyBytes ?? 0;
    pending.lastAt = nowIso;
    pending.lastCode = e.code;
    pending.lastPath = e.path ?? null;
    pending.lastMessage = e.message;
    if (first) due.push(this.take(pending));
    return due;
  }

  /** The unwritten counts of every window, ended or not (the engine is stopping). */
  drain(): RefusalDelta[] {
    const out = [...this.open.values()].filter((p) => p.count > 0).map((p) => this.take(p));
    this.open.clear();
    return out;
  }

  private ended(now: number): RefusalDelta[] {
    const out: RefusalDelta[] = [];
    for (const [id, pending] of this.open) {
      if (pending.endsAt > now) continue;
      this.open.delete(id);
      if (pending.count > 0) out.push(this.take(pending));
    }
    return out;
  }

  /** A copy of what is counted, and the counters reset: the window stays open for more. */
  private take(pending: Pending): RefusalDelta {
    const delta = { ...pending, byCode: { ...pending.byCode } };
    pending.count = 0;
    pending.byCode = {};
    pending.bodyBytes = 0;
    return delta;
  }
}

/** RefusalWindow records, typed (src/state/record-kind.ts). */
const refusalWindowKind = recordKind<RefusalWindowFields>({ type: REFUSALS_TYPE });

/** A refusal window's fields, typed: the one place one is read out of `Resource.fields`. */
export function refusalWindowOf(resource: Resource): RefusalWindowFields {
  return refusalWindowKind.of(resource);
}

function readWindow(view: ReadView, id: string): RefusalWindowFields | undefined {
  const r = view.get(REFUSALS_TYPE, id);
  return r === undefined || r.deleted ? undefined : refusalWindowOf(r);
}

/**
 * One aggregate write per delta, merged into what is stored: other processes count the same
 * windows, and their writes add up rather than overwrite each other.
 */
export function refusalWindowWrites(view: ReadView, deltas: readonly RefusalDelta[]): Write[] {
  const merged = new Map<string, RefusalWindowFields>();
  for (const d of deltas) {
    const stored = merged.get(d.id) ?? readWindow(view, d.id);
    const byCode: Record<string, number> = { ...(stored?.byCode ?? {}) };
    for (const [code, n] of Object.entries(d.byCode)) byCode[code] = (byCode[code] ?? 0) + n;
    const later = stored === undefined || d.lastAt >= stored.lastAt;
    merged.set(d.id, {
      ...d.source,
      count: (stored?.count ?? 0) + d.count,
      byCode,
      bodyBytes: (stored?.bodyBytes ?? 0) + d.bodyBytes,
      firstAt: stored === undefined || d.firstAt < stored.firstAt ? d.firstAt : stored.firstAt,
      lastAt: later ? d.lastAt : stored.lastAt,
      lastCode: later ? d.lastCode : stored.lastCode,
      lastPath: later ? d.lastPath : stored.lastPath,
      lastMessage: later ? d.lastMessage : stored.lastMessage,
    });
  }
  return [...merged].map(([id, fields]) => ({
    operation: 'trigger.refusals',
    subjectType: REFUSALS_TYPE,
    subjectId: id,
    fields: refusalWindowKind.json(fields),
    actor: 'system',
  }));
}
