// Scheduler host heartbeats: each host that claims schedules (a `twinworld work` or `serve`
// process) records that it polled, at most once per beat interval of the world clock, so
// `inspect` can say which hosts are alive — those whose last beat is younger than three intervals.
// Host rows are shared by every tenant (they carry no tenantId).
import type { ReadView } from '../../state/read-view.js';
import type { Resource } from '../../state/resource.js';
import { isoAt } from '../../world/clock.js';
import { commit, skip, type Decision } from '../../world/decision.js';
import { recordKind } from '../../state/record-kind.js';

export const HOST_TYPE = 'schedule_host';
export const DEFAULT_HOST_BEAT_MS = 10_000;
/** A host is alive while its last beat is younger than this many beat intervals. */
const HOST_ALIVE_BEATS = 3;

interface HostFields {
  readonly owner: string;
  /** What the host said about itself (e.g. "hostname:pid"), or null. */
  readonly label: string | null;
  readonly firstBeatAt: string;
  readonly beatAt: string;
  readonly aliveUntil: string;
  readonly beats: number;
}

/** Host records, typed (src/state/record-kind.ts). */
const hostKind = recordKind<HostFields>({ type: HOST_TYPE });

/** A schedule host's fields, typed: the one place one is read out of `Resource.fields`. */
function hostOf(resource: Resource): HostFields {
  return hostKind.of(resource);
}

export interface HostView extends HostFields {
  readonly alive: boolean;
}

export function decideHostBeat(
  view: ReadView,
  nowMs: number,
  owner: string,
  label: string | null,
  beatMs: number,
): Decision<boolean> {
  const prev = view.get(HOST_TYPE, owner);
  const before = prev === undefined || prev.deleted ? undefined : hostOf(prev);
  // Another handle of this host beat within the interval already.
  if (before !== undefined && Date.parse(before.beatAt) + beatMs > nowMs) return skip(false);
  const nowIso = isoAt(nowMs);
  const fields: HostFields = {
    owner,
    label,
    firstBeatAt: before?.firstBeatAt ?? nowIso,
    beatAt: nowIso,
    aliveUntil: isoAt(nowMs + HOST_ALIVE_BEATS * beatMs),
    beats: (before?.beats ?? 0) + 1,
  };
  return commit(
    [
      {
        operation: 'schedule.host_beat',
        subjectType: HOST_TYPE,
        subjectId: owner,
        fields: { ...fields },
        actor: 'system',
      },
    ],
    true,
  );
}

/** Every host that ever beat, newest beat first, with whether it is alive at `nowMs`. */
export function hostViews(
  rows: readonly { fields: unknown; deleted: boolean }[],
  nowMs: number,
): HostView[] {
  return rows
    .filter((r) => !r.deleted)
    .map((r) => r.fields as HostFields)
    .filter((h) => typeof h.owner === 'string' && typeof h.beatAt === 'string')
    .map((h) => ({ ...h, alive: Date.parse(h.aliveUntil) > nowMs }))
    .sort((a, b) =>
      a.beatAt < b.beatAt ? 1 : a.beatAt > b.beatAt ? -1 : a.owner < b.owner ? -1 : 1,
    );
}
