// The built-in routine of `twinworld serve`: records what it received as a `received_event`
// resource in the trigger twin, one per trigger record, so a re-run overwrites rather than adds.
import type { JsonValue } from '../../log/json-value.js';
import type { RoutineContext, RoutineFn } from '../in-process-runner.js';
import { recordId } from '../trigger-records.js';

export const RECEIVED_TYPE = 'received_event';
/** The routine's name: the only built-in routine a serve configuration routes to. */
export const RECORD_ROUTINE = 'record' as const;

export function recordRoutine(twinName: string): RoutineFn {
  return async (input: JsonValue, ctx: RoutineContext): Promise<JsonValue> => {
    const e = ctx.envelope;
    const id = recordId(e.tenantId, e.dedupeKey);
    await ctx.world.twin(twinName).applyWrite({
      operation: 'routine.record',
      subjectType: RECEIVED_TYPE,
      subjectId: id,
      fields: {
        routineId: ctx.routineId,
        tenantId: e.tenantId,
        scopeId: e.scopeId,
        provider: e.source.provider,
        sourceKind: e.source.kind,
        triggerId: e.triggerId,
        eventId: e.eventId,
        dedupeKey: e.dedupeKey,
        attempt: ctx.attempt,
        input,
      },
      actor: 'system',
    });
    return { recorded: id };
  };
}
