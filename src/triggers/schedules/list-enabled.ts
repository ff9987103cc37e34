// The enabled schedules of a tenant (docs/schedules.md): the declarations a caller that wants
// only what will fire can load — a host warming its view, a dashboard — without the paused ones.
// A worker's tick does not read this: a paused schedule can still hold a running occurrence that
// must finish or recover, so the claims read every declaration.
import { describeValue, TwinError } from '../../errors.js';
import type { TriggerContext } from '../tenant-context.js';
import type { UndecodableRow } from './ledger.js';
import type { Schedules, ScheduleView } from './schedules.js';

export interface EnabledSchedules {
  /** Enabled declarations, by schedule id. */
  readonly items: ScheduleView[];
  /** Rows that could not be read: reported, never guessed to be enabled. */
  readonly undecodable: UndecodableRow[];
}

/** A tenant's enabled schedules, by id; the same authorization as `list`. */
export async function listEnabledSchedules(
  schedules: Schedules,
  tenantId: string,
  context?: TriggerContext,
): Promise<EnabledSchedules> {
  if (typeof (schedules as Partial<Schedules> | null | undefined)?.list !== 'function')
    throw new TwinError(
      'INVALID_ARGUMENT',
      `listEnabledSchedules(schedules, tenantId): schedules must be a Schedules (new Schedules({world})), got ${describeValue(schedules)}`,
      { path: 'schedules' },
    );
  const { items, undecodable } = await schedules.list(tenantId, context);
  return { items: items.filter((s) => s.enabled), undecodable };
}
