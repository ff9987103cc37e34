// What a schedule's run looks like to a routine runner: the same RunStartInfo and envelope an
// ingested trigger gets, built only from what the ledger row fixed at its claim, so a reclaimed
// run sees the same envelope as the first.
import { createTriggerEnvelope, type TriggerEnvelope } from '../envelope.js';
import type { RunStartInfo } from '../runner.js';
import type { FireFields } from './fire-record.js';

/** The provider of a schedule's envelopes (source kind "calendar"). */
const SCHEDULE_PROVIDER = 'schedule';

function scheduleDedupeKey(scheduleId: string, nominalAt: string): string {
  return `schedule:${scheduleId}@${nominalAt}`;
}

function fireEnvelope(fireId: string, fire: FireFields): TriggerEnvelope {
  return createTriggerEnvelope({
    tenantId: fire.tenantId,
    scopeId: fire.scopeId,
    source: { kind: 'calendar', provider: SCHEDULE_PROVIDER },
    triggerId: fire.scheduleId,
    eventId: fireId,
    dedupeKey: scheduleDedupeKey(fire.scheduleId, fire.nominalAt),
    occurredAt: fire.nominalAt,
    scheduledAt: fire.nominalAt,
    payload: {
      schedule: fire.scheduleId,
      nominalAt: fire.nominalAt,
      wallTime: fire.wallTime,
      utcOffsetMinutes: fire.utcOffsetMinutes,
      dst: fire.dst,
      dstRule: fire.dstRule,
      origin: fire.origin,
      revision: fire.revision,
    },
  });
}

/** The run of one reservation: its fence is the attempt, the ledger row the record. */
export function runStartOf(fireId: string, fire: FireFields, fence: number): RunStartInfo {
  const envelope = fireEnvelope(fireId, fire);
  return {
    routineId: fire.routine,
    runKey: envelope.dedupeKey,
    attempt: fence,
    recordId: fireId,
    envelope,
  };
}
