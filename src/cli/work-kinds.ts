// Which kinds of work a process's worker runs: the one place `work` and `serve` assemble them, so a
// new kind (schedules, deferred dispatches) is wired once.
import { deliveryWork } from '../events/delivery-work.js';
import type { Dispatcher } from '../events/dispatcher.js';
import { calendarWork } from '../triggers/calendar/calendar-work.js';
import { runTakeoverWork } from '../triggers/engine/run-work.js';
import { deferredDispatchWork } from '../triggers/deferred/dispatch-work.js';
import type { TriggerRuntime } from '../host/runtime/runtime.js';
import { scheduleHostWork } from '../host/runtime/schedule-host.js';
import type { WorkKind } from '../work/work-kind.js';
import { hostname } from 'node:os';

/** How a host names itself in its schedule heartbeats. */
function hostLabel(): string {
  return `${hostname()}:${process.pid}`;
}

/** `twinworld work`: the deliveries of every registered pack. */
export function deliveryWorkKinds(dispatcher: Dispatcher): WorkKind[] {
  return deliveryWork(dispatcher);
}

/**
 * `twinworld work`: the deliveries of every registered pack, and the schedules (their reservation
 * lease is `leaseMs` when the command was given one, else five minutes).
 */
export function workKinds(dispatcher: Dispatcher, options: { leaseMs?: number } = {}): WorkKind[] {
  return [
    ...deliveryWorkKinds(dispatcher),
    scheduleHostWork(dispatcher.world, {
      owner: dispatcher.owner,
      hostLabel: hostLabel(),
      ...(options.leaseMs === undefined ? {} : { leaseMs: options.leaseMs }),
    }),
  ];
}

/**
 * `twinworld serve`: calendars that fell due, routine runs whose owner's lease lapsed, deferred
 * dispatches that fell due (delayed, debounced, queued for a slot, expiring), and the schedules.
 */
export function serveWorkKinds(runtime: TriggerRuntime): WorkKind[] {
  return [
    calendarWork(runtime.calendar, runtime.engine.twin),
    runTakeoverWork(runtime.engine),
    deferredDispatchWork(runtime.engine),
    scheduleHostWork(runtime.engine.world, {
      owner: runtime.engine.claimant.owner,
      twin: runtime.engine.twin.name,
      hostLabel: hostLabel(),
    }),
  ];
}
