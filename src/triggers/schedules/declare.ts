// Declaring schedules: create or change one behind a revision fence, pause and resume it, and
// read one or a tenant's list back.
import { checkOptionKeys } from '../../errors.js';
import { isoAt } from '../../world/clock.js';
import { commit, skip } from '../../world/decision.js';

import { checkTenantId, checkTriggerId } from '../envelope.js';
import { TENANT_INDEX } from '../trigger-records.js';
import { authorize, contextArgument, type TriggerContext } from '../tenant-context.js';
import { closeSession, openSession, type WorkingDecl } from './claim.js';
import {
  declarationFields,
  decodeSchedule,
  nextAfter,
  SCHEDULE_TYPE,
  scheduleKey,
  validateScheduleInput,
  type ScheduleFields,
  type ScheduleInput,
} from './declaration.js';
import { undecodableRow, type UndecodableRow } from './ledger.js';
import { promoteBuffered } from './result.js';
import { scheduleKind } from './declaration.js';

import {
  type ScheduleService,
  checkRevision,
  unknownSchedule,
  revisionMismatch,
  readStored,
} from './schedule-service.js';

export type ScheduleView = ScheduleFields & { readonly key: string };

export interface ChangeOptions {
  /** The revision the change was decided against; a stale one is refused (REVISION_MISMATCH). */
  readonly expectedRevision?: number;
  readonly context?: TriggerContext;
}

const CHANGE_OPTION_KEYS: readonly (keyof ChangeOptions)[] = ['expectedRevision', 'context'];

/**
 * A misspelt {expectedRevison} was dropped and the change went through unfenced, over whatever
 * revision was stored; null options were a TypeError.
 */
function checkChangeOptions(call: string, options: unknown): void {
  checkOptionKeys(call, options, CHANGE_OPTION_KEYS, 'options', true);
}

/**
 * Creates or changes a schedule. With `expectedRevision` the change is fenced: 0 means "must be
 * new", N means "as I read it at revision N"; anything else is REVISION_MISMATCH naming both. A
 * change fences what fell due before it: the schedule counts its occurrences from now.
 */
export async function declareSchedule(
  svc: ScheduleService,
  input: ScheduleInput,
  options: ChangeOptions = {},
): Promise<ScheduleView> {
  const valid = validateScheduleInput(input);
  checkChangeOptions('schedules.declare(input, options)', options);
  const expected = checkRevision(options.expectedRevision);
  authorize(contextArgument(options.context), valid.tenantId, 'configure', 'declare schedules');
  const key = scheduleKey(valid.tenantId, valid.scheduleId);
  const nowMs = svc.now();
  return svc.decide((view) => {
    // An unreadable declaration can be replaced: declaring is how it is repaired.
    const stored = view.get(SCHEDULE_TYPE, key);
    const decoded = stored === undefined || stored.deleted ? undefined : decodeSchedule(stored);
    const before = decoded?.ok === true ? decoded.value : undefined;
    const raw = stored?.deleted === false ? stored.fields.revision : undefined;
    const actual = before?.revision ?? (typeof raw === 'number' ? raw : 0);
    if (expected !== undefined && expected !== actual)
      throw revisionMismatch(valid.tenantId, valid.scheduleId, expected, actual);
    const fields = { ...declarationFields(valid, before, isoAt(nowMs)), revision: actual + 1 };
    // Enabled again with occurrences queued and nothing running: the oldest takes the slot.
    const s = openSession(view, nowMs, key, fields);
    promoteBuffered(s);
    const next: ScheduleFields = {
      ...fields,
      active: s.decl.active,
      buffer: s.decl.buffer,
      lastFiredAt: s.decl.lastFiredAt,
    };
    return commit(
      [
        {
          operation: before === undefined ? 'schedule.declare' : 'schedule.change',
          subjectType: SCHEDULE_TYPE,
          subjectId: key,
          fields: scheduleKind.json(next),
          actor: 'operator',
        },
        ...s.writes,
      ],
      { key, ...next },
    );
  });
}

export async function setEnabled(
  svc: ScheduleService,
  tenantId: string,
  scheduleId: string,
  enabled: boolean,
  options: ChangeOptions,
): Promise<ScheduleView> {
  checkTenantId(tenantId, 'tenantId', 'INVALID_ARGUMENT');
  checkTriggerId(scheduleId, 'scheduleId', 'INVALID_ARGUMENT');
  checkChangeOptions(
    `schedules.${enabled ? 'resume' : 'pause'}(tenantId, scheduleId, options)`,
    options,
  );
  const expected = checkRevision(options.expectedRevision);
  authorize(
    contextArgument(options.context),
    tenantId,
    'configure',
    enabled ? 'resume schedules' : 'pause schedules',
  );
  const key = scheduleKey(tenantId, scheduleId);
  const nowMs = svc.now();
  return svc.decide((view) => {
    const d = readStored(view, key);
    if (d === undefined) throw unknownSchedule(tenantId, scheduleId);
    if (expected !== undefined && expected !== d.revision)
      throw revisionMismatch(tenantId, scheduleId, expected, d.revision);
    if (d.enabled === enabled) return skip({ key, ...d });
    const nowIso = isoAt(nowMs);
    const s = openSession(view, nowMs, key, d);
    let patch: Partial<WorkingDecl>;
    if (enabled) {
      const cursor = d.cursor < nowIso ? nowIso : d.cursor;
      const nextAt = nextAfter(d, cursor);
      s.decl = { ...s.decl, enabled: true };
      promoteBuffered(s);
      patch = { enabled: true, cursor, nextAt, dueAt: nextAt };
    } else patch = { enabled: false, dueAt: null };
    closeSession(s, enabled ? 'schedule.resume' : 'schedule.pause', {
      ...patch,
      revision: d.revision + 1,
      updatedAt: nowIso,
    });
    return commit(s.writes, { key, ...s.decl });
  });
}

/** One schedule as stored, or undefined. An undecodable declaration is refused UNDECODABLE_RECORD. */
export async function getSchedule(
  svc: ScheduleService,
  tenantId: string,
  scheduleId: string,
  context?: TriggerContext,
): Promise<ScheduleView | undefined> {
  checkTenantId(tenantId, 'tenantId', 'INVALID_ARGUMENT');
  checkTriggerId(scheduleId, 'scheduleId', 'INVALID_ARGUMENT');
  authorize(contextArgument(context), tenantId, 'read', 'read schedules');
  const key = scheduleKey(tenantId, scheduleId);
  const r = await svc.twin.get(SCHEDULE_TYPE, key);
  if (r === undefined || r.deleted) return undefined;
  const d = decodeSchedule(r);
  if (!d.ok) throw d.error;
  return { key, ...d.value };
}

/** A tenant's schedules by id; a row that cannot be read is reported beside them, not thrown. */
export async function listSchedules(
  svc: ScheduleService,
  tenantId: string,
  context?: TriggerContext,
): Promise<{ items: ScheduleView[]; undecodable: UndecodableRow[] }> {
  checkTenantId(tenantId, 'tenantId', 'INVALID_ARGUMENT');
  authorize(contextArgument(context), tenantId, 'read', 'list schedules');
  const rows = await svc.twin.lookup(SCHEDULE_TYPE, TENANT_INDEX, tenantId);
  const items: ScheduleView[] = [];
  const undecodable: UndecodableRow[] = [];
  for (const r of rows) {
    const d = decodeSchedule(r);
    if (d.ok) items.push({ key: r.id, ...d.value });
    else undecodable.push(undecodableRow(d));
  }
  items.sort((a, b) => (a.scheduleId < b.scheduleId ? -1 : a.scheduleId > b.scheduleId ? 1 : 0));
  return { items, undecodable };
}
