// Which kinds of work a process's worker runs: the one place `work` and `serve` assemble them, so a
// new kind (schedules, deferred dispatches) is wired once.
import { deliveryWork } from '../events/delivery-work.js';
import type { Dispatcher } from '../events/dispatcher.js';
import { calendarWork } from '../triggers/calendar/calendar-work.js';
import { runTakeoverWork } from '../triggers/run-work.js';
import type { TriggerRuntime } from '../triggers/serve/serve.js';
import type { WorkKind } from '../work/work-kind.js';

/** `twinworld work`: the deliveries of every registered pack. */
export function deliveryWorkKinds(dispatcher: Dispatcher): WorkKind[] {
  return deliveryWork(dispatcher);
}

/** `twinworld serve`: calendars that fell due, and routine runs whose owner's lease lapsed. */
export function serveWorkKinds(runtime: TriggerRuntime): WorkKind[] {
  return [calendarWork(runtime.calendar, runtime.engine.twin), runTakeoverWork(runtime.engine)];
}
