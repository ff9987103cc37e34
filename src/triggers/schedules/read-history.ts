// Reading the fire ledger newest first: by run id, by schedule or by tenant, paged by cursor.

import { checkOptionKeys } from '../../errors.js';
import { checkTenantId, checkTriggerId } from '../envelope.js';
import { TENANT_INDEX } from '../trigger-records.js';
import { authorize, contextArgument, type TriggerContext } from '../tenant-context.js';
import { scheduleKey } from './declaration.js';
import { FIRE_TYPE, fireOfRunId, SCHEDULE_INDEX } from './fire-record.js';
import {
  checkLimit,
  checkOutcome,
  decodeCursor,
  historyPage,
  type HistoryPage,
  type HistoryQuery,
} from './ledger.js';

import { type ScheduleService, refuse } from './schedule-service.js';

const HISTORY_KEYS: readonly (keyof HistoryQuery)[] = [
  'tenantId',
  'scheduleId',
  'runId',
  'outcome',
  'cursor',
  'limit',
];

/** The ledger newest occurrence first; see HistoryQuery. INVALID_OPTIONS for a bad limit, cursor or outcome. */
export async function readHistory(
  svc: ScheduleService,
  query: HistoryQuery,
  context?: TriggerContext,
): Promise<HistoryPage> {
  if (query === null || typeof query !== 'object')
    refuse(
      'INVALID_OPTIONS',
      'query',
      'history({tenantId, scheduleId?, runId?, outcome?, cursor?, limit?}) needs a query',
    );
  // A misspelt {limt} or {outcom} was dropped: the first page of everything came back.
  checkOptionKeys('schedules.history(query)', query, HISTORY_KEYS, 'query');
  checkTenantId(query.tenantId, 'tenantId', 'INVALID_ARGUMENT');
  if (query.scheduleId !== undefined)
    checkTriggerId(query.scheduleId, 'scheduleId', 'INVALID_ARGUMENT');
  if (query.runId !== undefined && (typeof query.runId !== 'string' || query.runId === ''))
    refuse('INVALID_OPTIONS', 'runId', 'runId must be a non-empty string');
  const limit = checkLimit(query.limit);
  const outcome = checkOutcome(query.outcome);
  const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
  authorize(contextArgument(context), query.tenantId, 'read', 'read the fire ledger');
  const rows = await svc.twin.read((view) => {
    const byRun = query.runId === undefined ? undefined : fireOfRunId(query.runId);
    if (byRun !== undefined) {
      const r = view.get(FIRE_TYPE, byRun);
      return r === undefined ? [] : [r];
    }
    if (query.scheduleId !== undefined)
      return view.lookup(FIRE_TYPE, SCHEDULE_INDEX, scheduleKey(query.tenantId, query.scheduleId));
    return view.lookup(FIRE_TYPE, TENANT_INDEX, query.tenantId);
  });
  return historyPage(rows, query, {
    limit,
    ...(after === undefined ? {} : { after }),
    ...(outcome === undefined ? {} : { outcome }),
  });
}
