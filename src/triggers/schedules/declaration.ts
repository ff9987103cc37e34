// Schedule declarations: a resource per schedule and tenant in the trigger twin — the cron
// expression and zone, the routine and its input, whether it is enabled, its overlap and catch-up
// policies, and a revision that increases on every change (the fence against stale edits). Also
// what the claims keep on it: the cursor, the next occurrence (its due time, indexed), the
// occurrences that hold a reservation or a run, and the buffer.
import { TwinError } from '../../errors.js';
import { DEFAULT_CATCH_UP, MAX_CATCH_UP_FIRES } from '../cron/shared-occurrence.js';
import { canonicalJson, sha256Hex } from '../../log/canonical-json.js';
import { assertJson, isPlainObject, MAX_JSON_DEPTH, type JsonValue } from '../../log/json-value.js';
import type { Resource } from '../../state/resource.js';
import { checkScopeId, checkTenantId, checkTriggerId } from '../envelope.js';
import {
  DST_RULES,
  nextOccurrence,
  validateCalendarSpec,
  validateCatchUpPolicy,
  type CatchUpPolicy,
  type DstFoldRule,
  type DstGapRule,
} from '../cron/occurrences.js';

import { DEFAULT_OVERLAP, validateOverlap, type OverlapPolicy } from './overlap.js';
import { recordKind } from '../../state/record-kind.js';

export const SCHEDULE_TYPE = 'schedule';
/** The routine a schedule runs when none is named: it records its input (routines/record-routine.ts). */
export const DEFAULT_ROUTINE = 'record';
export const DEFAULT_TIMEZONE = 'UTC';
/** A schedule's input is stored on the declaration and on every occurrence it claims. */
const MAX_INPUT_BYTES = 64 * 1024;

/** What a caller declares. */
export interface ScheduleInput {
  readonly tenantId: string;
  /** The schedule's id, also the trigger id its runs carry: 1–128 letters, digits and _ . : - / */
  readonly scheduleId: string;
  /** Default: the tenant id. */
  readonly scopeId?: string;
  /** 5 fields (minute first) or 6 (second first). */
  readonly cron: string;
  /** IANA zone; default UTC. */
  readonly timezone?: string;
  /** Default "record". */
  readonly routine?: string;
  /** The routine's input on every run; default null. */
  readonly input?: JsonValue;
  /** Default skip. */
  readonly overlap?: OverlapPolicy | string;
  /** What to do with occurrences that fell due while no scheduler ran; default latest. */
  readonly catchUp?: CatchUpPolicy | string;
  /** Default true; false keeps the schedule but claims nothing. */
  readonly enabled?: boolean;
}

export type ValidScheduleInput = Required<Omit<ScheduleInput, 'overlap' | 'catchUp'>> & {
  readonly overlap: OverlapPolicy;
  readonly catchUp: CatchUpPolicy;
};

/** The declaration as stored. */
export interface ScheduleFields {
  readonly tenantId: string;
  readonly scheduleId: string;
  readonly scopeId: string;
  readonly cron: string;
  readonly timezone: string;
  readonly routine: string;
  readonly input: JsonValue;
  readonly overlap: OverlapPolicy;
  readonly catchUp: CatchUpPolicy;
  readonly enabled: boolean;
  /** 1 on creation, +1 on every change: a change or claim naming another revision is refused. */
  readonly revision: number;
  readonly createdAt: string;
  readonly updatedAt: string;
  /** The tz database the occurrences are computed with (process.versions.tz). */
  readonly tzdb: string | null;
  readonly dstRules: { readonly gap: DstGapRule; readonly fold: DstFoldRule };
  /** Occurrences at or before this nominal instant are handled (claimed or recorded missed). */
  readonly cursor: string;
  /** The first occurrence after the cursor, or null when the expression has no more. */
  readonly nextAt: string | null;
  /** nextAt while enabled, else null: the due-time index (DUE_INDEX) finds due schedules by it. */
  readonly dueAt: string | null;
  /** Occurrences holding a reservation or a run, oldest first (ledger row ids). */
  readonly active: readonly string[];
  /** Occurrences queued behind them by a buffer policy, oldest first. */
  readonly buffer: readonly string[];
  /** How many occurrences got a ledger row from the schedule's own claims (backfills not counted). */
  readonly occurrences: number;
  /** The nominal time of the last occurrence claimed to launch. */
  readonly lastFiredAt: string | null;
}

export function scheduleKey(tenantId: string, scheduleId: string): string {
  return `sch_${sha256Hex(`${tenantId}\u0000${scheduleId}`)}`;
}

function refuse(path: string, message: string): never {
  throw new TwinError('INVALID_CONFIG', message, { path });
}

/** "skip", "latest" or "all:N" (the CLI's form), or the calendar's object form. */
export function parseCatchUp(value: unknown, path = 'catchUp'): CatchUpPolicy {
  let policy: CatchUpPolicy;
  if (typeof value === 'string') {
    const m = /^(skip|latest)$|^all:(\d+)$/.exec(value);
    if (m === null)
      refuse(path, `catch-up '${value}' is not a policy; use 'skip', 'latest' or 'all:N' (N ≥ 1)`);
    policy = validateCatchUpPolicyAt(
      m[1] !== undefined ? { kind: m[1] } : { kind: 'all', max: Number(m[2]) },
      path,
    );
  } else policy = validateCatchUpPolicyAt(value, path);
  if (policy.kind === 'all' && policy.max > MAX_CATCH_UP_FIRES)
    refuse(
      path,
      `catch-up all:${policy.max} is over ${MAX_CATCH_UP_FIRES}; older missed occurrences are recorded as skipped`,
    );
  return policy;
}

function validateCatchUpPolicyAt(value: unknown, path: string): CatchUpPolicy {
  try {
    return validateCatchUpPolicy(value);
  } catch (error) {
    const e = error as TwinError;
    return refuse(e.path === undefined ? path : `${path}.${e.path}`, e.message);
  }
}

const INPUT_KEYS = [
  'tenantId',
  'scheduleId',
  'scopeId',
  'cron',
  'timezone',
  'routine',
  'input',
  'overlap',
  'catchUp',
  'enabled',
];

/** Checks a declaration; INVALID_CONFIG naming the field. Answers it with defaults filled in. */
export function validateScheduleInput(value: unknown): ValidScheduleInput {
  if (!isPlainObject(value))
    refuse(
      '',
      "a schedule is an object such as { tenantId: 'acme', scheduleId: 'nightly', cron: '0 3 * * *', timezone: 'Europe/London' }",
    );
  for (const key of Object.keys(value))
    if (!INPUT_KEYS.includes(key))
      refuse(key, `schedule has an unknown key "${key}"; allowed: ${INPUT_KEYS.join(', ')}`);
  const tenantId = checkTenantId(value.tenantId, 'tenantId', 'INVALID_CONFIG');
  const scheduleId = checkTriggerId(value.scheduleId, 'scheduleId', 'INVALID_CONFIG');
  const scopeId =
    value.scopeId === undefined
      ? tenantId
      : checkScopeId(value.scopeId, 'scopeId', 'INVALID_CONFIG');
  const { cron, timezone } = validateCalendarSpec({
    cron: value.cron,
    timezone: value.timezone ?? DEFAULT_TIMEZONE,
  });
  const routine =
    value.routine === undefined
      ? DEFAULT_ROUTINE
      : checkTriggerId(value.routine, 'routine', 'INVALID_CONFIG');
  const input = value.input === undefined ? null : value.input;
  // Stored at fields.input of the declaration and of each ledger row.
  assertJson(input, 'input', { code: 'INVALID_CONFIG', maxDepth: MAX_JSON_DEPTH - 2 });
  const bytes = Buffer.byteLength(canonicalJson(input), 'utf8');
  if (bytes > MAX_INPUT_BYTES)
    throw new TwinError(
      'PAYLOAD_TOO_LARGE',
      `input is ${bytes} bytes, over ${MAX_INPUT_BYTES}; pass a reference the routine can look up`,
      { path: 'input' },
    );
  const overlap =
    value.overlap === undefined ? DEFAULT_OVERLAP : validateOverlap(value.overlap, 'overlap');
  const catchUp =
    value.catchUp === undefined ? DEFAULT_CATCH_UP : parseCatchUp(value.catchUp, 'catchUp');
  if (value.enabled !== undefined && typeof value.enabled !== 'boolean')
    refuse('enabled', 'enabled must be true or false');
  return {
    tenantId,
    scheduleId,
    scopeId,
    cron,
    timezone,
    routine,
    input,
    overlap,
    catchUp,
    enabled: value.enabled ?? true,
  };
}

/** A row a listing read, or why it could not: one bad row never hides the others. */
export type Decoded<T> =
  | { readonly ok: true; readonly id: string; readonly value: T }
  | { readonly ok: false; readonly id: string; readonly error: TwinError };

export function undecodable(type: string, id: string, field: string, why: string): TwinError {
  return new TwinError(
    'UNDECODABLE_RECORD',
    `${type} ${id} cannot be read: ${field} ${why}; it is left as stored and reported, the other rows are listed`,
    { path: field, details: { type, id } },
  );
}

const isString = (v: unknown): v is string => typeof v === 'string';
const isIsoOrNull = (v: unknown): boolean =>
  v === null || (isString(v) && Number.isFinite(Date.parse(v)));
const isStringList = (v: unknown): v is string[] => Array.isArray(v) && v.every(isString);

/** Schedule declarations, typed (src/state/record-kind.ts); decodeSchedule checks a stored one. */
export const scheduleKind = recordKind<ScheduleFields>({ type: SCHEDULE_TYPE });

/** Reads a stored declaration, checking every field the claims rely on. */
export function decodeSchedule(resource: Resource): Decoded<ScheduleFields> {
  const f = resource.fields as Record<string, unknown>;
  const bad = (field: string, why: string): Decoded<ScheduleFields> => ({
    ok: false,
    id: resource.id,
    error: undecodable(SCHEDULE_TYPE, resource.id, field, why),
  });
  for (const key of ['tenantId', 'scheduleId', 'scopeId', 'cron', 'timezone', 'routine', 'cursor'])
    if (!isString(f[key])) return bad(key, 'is not a string');
  if (typeof f.enabled !== 'boolean') return bad('enabled', 'is not a boolean');
  if (!Number.isSafeInteger(f.revision) || (f.revision as number) < 1)
    return bad('revision', 'is not a positive integer');
  if (!isIsoOrNull(f.nextAt)) return bad('nextAt', 'is not a time or null');
  if (!isIsoOrNull(f.dueAt)) return bad('dueAt', 'is not a time or null');
  if (!isStringList(f.active)) return bad('active', 'is not a list of occurrence ids');
  if (!isStringList(f.buffer)) return bad('buffer', 'is not a list of occurrence ids');
  try {
    validateCalendarSpec({ cron: f.cron, timezone: f.timezone });
    validateOverlap(f.overlap);
    validateCatchUpPolicy(f.catchUp);
  } catch (error) {
    const e = error as TwinError;
    return bad(e.path ?? 'cron', `is not valid (${e.message})`);
  }
  return { ok: true, id: resource.id, value: scheduleKind.of(resource) };
}

/** The fields of a new declaration or of a change to one (claim state carried over). */
export function declarationFields(
  input: ValidScheduleInput,
  before: ScheduleFields | undefined,
  nowIso: string,
): ScheduleFields {
  // A change fences what fell due before it (as Temporal's updates do): counting starts now.
  const cursor = before === undefined || before.cursor < nowIso ? nowIso : before.cursor;
  const nextAt = nextAfter(input, cursor);
  return {
    ...input,
    revision: (before?.revision ?? 0) + 1,
    createdAt: before?.createdAt ?? nowIso,
    updatedAt: nowIso,
    tzdb: process.versions.tz ?? null,
    dstRules: DST_RULES,
    cursor,
    nextAt,
    dueAt: input.enabled ? nextAt : null,
    active: before?.active ?? [],
    buffer: before?.buffer ?? [],
    occurrences: before?.occurrences ?? 0,
    lastFiredAt: before?.lastFiredAt ?? null,
  };
}

/** The first occurrence strictly after `afterIso` (ISO), or null when the expression has no more. */
export function nextAfter(
  spec: { readonly cron: string; readonly timezone: string },
  afterIso: string,
): string | null {
  const next = nextOccurrence({ cron: spec.cron, timezone: spec.timezone }, Date.parse(afterIso));
  return next === undefined ? null : new Date(next.nominalAt).toISOString();
}
