// An endpoint's recent success rate, for `twinworld endpoints list` and the console: of its last
// RECENT_ATTEMPTS finished attempts (newest first by when they finished), how many succeeded.
// Read from the attempt records themselves, so it costs the send path nothing; health records are
// written only when something goes wrong and cannot say how often things go right.
import type { ReadView } from '../state/read-view.js';
import { attemptType } from './delivery-records.js';

export const RECENT_ATTEMPTS = 20;

export interface RecentSuccess {
  /** Finished attempts counted (at most RECENT_ATTEMPTS). */
  readonly attempts: number;
  readonly succeeded: number;
  /** succeeded / attempts, or null when the endpoint has no finished attempt yet. */
  readonly rate: number | null;
}

/** Per `kind:id` endpoint key, its recent success; endpoints with no attempts are absent. */
export function recentSuccess(view: ReadView, recordType: string): Map<string, RecentSuccess> {
  const endpointOf = new Map<string, string>();
  for (const d of view.list(recordType))
    endpointOf.set(d.id, `${String(d.fields.endpointKind)}:${String(d.fields.endpointId)}`);
  const finished = new Map<string, { at: string; id: string; ok: boolean }[]>();
  for (const a of view.list(attemptType(recordType))) {
    const state = a.fields.state;
    const at = a.fields.finishedAt;
    if (state === 'sending' || typeof at !== 'string') continue;
    const key = endpointOf.get(String(a.fields.delivery));
    if (key === undefined) continue;
    const list = finished.get(key) ?? [];
    list.push({ at, id: a.id, ok: state === 'succeeded' });
    finished.set(key, list);
  }
  const out = new Map<string, RecentSuccess>();
  for (const [key, list] of finished) {
    const recent = list
      .sort((x, y) => (x.at === y.at ? (x.id < y.id ? 1 : -1) : x.at < y.at ? 1 : -1))
      .slice(0, RECENT_ATTEMPTS);
    const succeeded = recent.filter((r) => r.ok).length;
    out.set(key, { attempts: recent.length, succeeded, rate: succeeded / recent.length });
  }
  return out;
}
