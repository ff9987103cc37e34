// Debounce windows, kept in the store: one small pointer per (tenant, trigger, key) names the
// dispatch whose window is open, so pings that reach different processes or hosts of one store
// coalesce — each ping is decided under the twin's lock, reading the pointer the last one wrote.
// trailing: every ping restarts the quiet period (up to maxWait) and the run gets the latest
// envelope. leading: the first ping runs at once; later pings inside the window are absorbed.
import { sha256Hex } from '../../log/canonical-json.js';
import type { JsonObject } from '../../log/json-value.js';
import type { Write } from '../../log/write.js';
import type { ReadView } from '../../state/read-view.js';
import type { Resource } from '../../state/resource.js';
import { isoAt } from '../../world/clock.js';
import type { DispatchPlan } from './dispatch-plan.js';
import { DEBOUNCE_TYPE, readDispatch, type DispatchFields } from './dispatch-record.js';
import { recordKind } from '../../state/record-kind.js';

export interface DebounceFields {
  readonly tenantId: string;
  readonly triggerId: string;
  readonly key: string;
  /** The dispatch of the window opened last (open or not: see openWindow). */
  readonly dispatchId: string;
  readonly openedAt: string;
}

type Debounce = NonNullable<DispatchPlan['debounce']>;

function debounceId(tenantId: string, triggerId: string, key: string): string {
  return `dbn_${sha256Hex(`${tenantId}\u0000${triggerId}\u0000${key}`).slice(0, 32)}`;
}

/** The dispatch whose window a ping at `nowIso` joins, if one is open. */
/** Debounce records, typed (src/state/record-kind.ts). */
const debouncePointerKind = recordKind<DebounceFields>({ type: DEBOUNCE_TYPE });

/** A debounce pointer's fields, typed: the one place one is read out of `Resource.fields`. */
function debouncePointerOf(resource: Resource): DebounceFields {
  return debouncePointerKind.of(resource);
}

export function openWindow(
  view: ReadView,
  nowIso: string,
  tenantId: string,
  triggerId: string,
  debounce: Debounce,
): { id: string; dispatch: DispatchFields } | undefined {
  const pointer = view.get(DEBOUNCE_TYPE, debounceId(tenantId, triggerId, debounce.key));
  if (pointer === undefined || pointer.deleted) return undefined;
  const id = debouncePointerOf(pointer).dispatchId;
  const dispatch = readDispatch(view, id);
  if (dispatch === undefined) return undefined;
  const open =
    debounce.mode === 'trailing'
      ? dispatch.state === 'debounced' && nowIso < dispatch.runAt
      : dispatch.windowClosesAt !== null &&
        nowIso < dispatch.windowClosesAt &&
        dispatch.state !== 'cancelled' &&
        dispatch.state !== 'expired';
  return open ? { id, dispatch } : undefined;
}

function earliest(...times: (number | null)[]): number {
  return Math.min(...times.filter((t): t is number => t !== null));
}

/** A new window: when it runs, and (leading) until when it absorbs pings. */
export function windowTimes(
  nowMs: number,
  debounce: Debounce,
): { runAt: string; windowClosesAt: string | null } {
  return debounce.mode === 'trailing'
    ? { runAt: isoAt(nowMs + debounce.period), windowClosesAt: null }
    : { runAt: isoAt(nowMs), windowClosesAt: isoAt(nowMs + debounce.period) };
}

/**
 * What a ping into an open window changes: the count, and for trailing the envelope it carries
 * and its run time (never past maxWait); for leading, the window's end (never past maxWait).
 */
export function pingFields(
  dispatch: DispatchFields,
  nowMs: number,
  debounce: Debounce,
  latest: { envelope: JsonObject; recordId: string },
): JsonObject {
  const cap =
    debounce.maxWait === null ? null : Date.parse(dispatch.firstPingAt) + debounce.maxWait;
  const fields: Record<string, unknown> = {
    pings: dispatch.pings + 1,
    lastPingAt: isoAt(nowMs),
  };
  if (debounce.mode === 'trailing') {
    const runAt = earliest(nowMs + debounce.period, cap);
    const expires = dispatch.expiresAt === null ? null : Date.parse(dispatch.expiresAt);
    fields.envelope = latest.envelope;
    fields.recordId = latest.recordId;
    fields.runAt = isoAt(runAt);
    fields.dueAt = isoAt(earliest(runAt, expires));
  } else {
    fields.windowClosesAt = isoAt(earliest(nowMs + debounce.period, cap));
  }
  return fields as JsonObject;
}

export function pointerWrite(
  tenantId: string,
  triggerId: string,
  key: string,
  dispatchId: string,
  nowIso: string,
): Write {
  return {
    operation: 'dispatch.debounce_window',
    subjectType: DEBOUNCE_TYPE,
    subjectId: debounceId(tenantId, triggerId, key),
    fields: {
      tenantId,
      triggerId,
      key,
      dispatchId,
      openedAt: nowIso,
    } satisfies DebounceFields,
    actor: 'system',
  };
}
