// Calendars as work for the worker (docs/work.md): a subscription falls due at its next occurrence
// and a pending occurrence when its ticker's lease ends, both found through the due-time index.
// Running an item ticks its tenant's calendars: ticks are idempotent per occurrence, so two
// workers ticking at once fire each occurrence once.
import { isoAt } from '../../world/clock.js';
import type { Twin } from '../../world/twin.js';
import { DUE_INDEX, END_OF_TIME } from '../../work/lease.js';
import type { DueItem, WorkKind } from '../../work/work-kind.js';
import type { CalendarSource } from './calendar-source.js';
import { OCCURRENCE_TYPE, SUBSCRIPTION_TYPE } from './subscription.js';

export function calendarWork(calendar: CalendarSource, twin: Twin): WorkKind {
  /** One item per tenant (its earliest due time): one tick settles all of a tenant's calendars. */
  const dueItems = (maxKey: string, limit: number): Promise<DueItem[]> =>
    twin.read((view) => {
      const byTenant = new Map<string, string>();
      for (const type of [SUBSCRIPTION_TYPE, OCCURRENCE_TYPE])
        for (const r of view.lookupUpTo(type, DUE_INDEX, maxKey, limit)) {
          const tenant = String(r.fields.tenantId);
          const at = String(r.fields.dueAt);
          const known = byTenant.get(tenant);
          if (known === undefined || at < known) byTenant.set(tenant, at);
        }
      return [...byTenant]
        .map(([id, dueAt]) => ({ id, dueAt }))
        .sort((a, b) => (a.dueAt < b.dueAt ? -1 : a.dueAt > b.dueAt ? 1 : a.id < b.id ? -1 : 1))
        .slice(0, limit);
    });
  return {
    name: 'calendar',
    twins: () => [twin],
    due: (nowMs, limit) => dueItems(isoAt(nowMs), limit),
    nextDue: async () => {
      const [first] = await dueItems(END_OF_TIME, 1);
      return first === undefined ? undefined : Date.parse(first.dueAt);
    },
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
  };
}
