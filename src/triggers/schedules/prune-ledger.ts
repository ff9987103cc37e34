// Pruning the fire ledger: settled rows older than a time are removed (writes that delete
// resources, never entries); rows still active or named by a declaration stay.
import { checkOptionKeys } from '../../errors.js';
import { isoAt } from '../../world/clock.js';

import { checkTenantId } from '../envelope.js';
import { authorize, contextArgument, type TriggerContext } from '../tenant-context.js';
import { FIRE_TYPE, SETTLED_INDEX } from './fire-record.js';
import { decidePrune, PRUNE_BATCH } from './ledger.js';

import { type ScheduleService, refuse, checkIso } from './schedule-service.js';

/**
 * Removes the tenant's settled ledger rows (completed, failed, skipped, superseded) that settled
 * before `before` — writes that delete resources, never entries. Buffered, ready, reserved and
 * running rows, and any row a declaration still names, stay.
 */
export async function pruneLedger(
  svc: ScheduleService,
  options: { tenantId: string; before: string },
  context?: TriggerContext,
): Promise<{ removed: number; kept: number }> {
  if (options === null || typeof options !== 'object')
    refuse('INVALID_OPTIONS', 'options', 'prune({tenantId, before}) needs options');
  checkOptionKeys('schedules.prune(options)', options, ['tenantId', 'before']);
  checkTenantId(options.tenantId, 'tenantId', 'INVALID_ARGUMENT');
  const beforeIso = isoAt(checkIso(options.before, 'before', 'INVALID_OPTIONS'));
  authorize(contextArgument(context), options.tenantId, 'configure', 'prune the fire ledger');
  let removed = 0;
  let kept = 0;
  for (;;) {
    const candidates = await svc.twin.read((view) =>
      view
        .lookup(FIRE_TYPE, SETTLED_INDEX, options.tenantId)
        .filter((r) => typeof r.fields.finishedAt === 'string' && r.fields.finishedAt < beforeIso)
        .map((r) => r.id),
    );
    if (candidates.length === 0) break;
    const batch = candidates.slice(0, PRUNE_BATCH);
    const nowIso = isoAt(svc.now());
    const step = await svc.decide((view) =>
      decidePrune(view, nowIso, options.tenantId, beforeIso, batch),
    );
    removed += step.removed;
    kept += step.kept;
    if (step.removed === 0 || candidates.length <= PRUNE_BATCH) break;
  }
  return { removed, kept };
}
