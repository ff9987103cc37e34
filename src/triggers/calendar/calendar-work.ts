// Calendars as work for the worker (docs/work.md): a subscription falls due at its next occurrence
// and a pending occurrence when its ticker's lease ends, both found through the due-time index.
// Running an item ticks its tenant's calendars: ticks are idempotent per occurrence, so two
// workers ticking at once fire each occurrence once.
import type { Twin } from '../../world/twin.js';
import { dueIndexWork } from '../../work/due-index-work.js';
import type { WorkKind } from '../../work/work-kind.js';
import type { CalendarSource } from './calendar-source.js';
import { occurrenceKind } from './occurrence-record.js';
import { subscriptionKind } from './subscription.js';

export function calendarWork(calendar: CalendarSource, twin: Twin): WorkKind {
  /** One item per tenant (its earliest due time): one tick settles all of a tenant's calendars. */
  const byTenant = (r: { fields: Record<string, unknown> }) => ({
    id: String(r.fields.tenantId),
    dueAt: String(r.fields.dueAt),
  });
  return dueIndexWork({
    name: 'calendar',
    twin,
    sources: [
      { kind: subscriptionKind, item: byTenant },
      { kind: occurrenceKind, item: byTenant },
    ],
    run: async (item) => {
      const answer = await calendar.tick(item.id);
      if (answer.fired.length === 0 && answer.missed.length === 0) return undefined;
      return {
        kind: 'calendar',
        id: item.id,
        outcome: 'ticked',
        detail: `fired ${answer.fired.length}, missed ${answer.missed.length}`,
      };
    },
  });
}
