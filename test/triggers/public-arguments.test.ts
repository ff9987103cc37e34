// The trigger entries' public calls refuse options they cannot use up front, naming the key: a
// misspelt option was dropped and its default used ({twn} ran on the default twin, {limt} listed
// everything, {r: fn} given to InProcessRunner left it with no routine), a world that is none was
// a TypeError from deep inside, and a dispatch id that is no text was "no deferred dispatch
// "undefined"".
import { describe, expect, it } from 'vitest';
import { CalendarSource } from '../../src/triggers/calendar/calendar-source.js';
import { ChildProcessRunner } from '../../src/triggers/child-runner/child-process-runner.js';
import { FileRunLock } from '../../src/triggers/child-runner/file-run-lock.js';
import { checkDispatchOptions } from '../../src/triggers/deferred/dispatch-options.js';
import { deferredDispatchWork } from '../../src/triggers/deferred/dispatch-work.js';
import { RoutineRegistry } from '../../src/triggers/routine-store.js';
import { listEnabledSchedules } from '../../src/triggers/schedules/list-enabled.js';
import { scheduleWork } from '../../src/triggers/schedules/schedule-work.js';
import { SYSTEM_CONTEXT, tenantContext, tenantOf } from '../../src/triggers/tenant-context.js';
import {
  cancelDispatch,
  inspectDispatch,
  listDispatches,
} from '../../src/triggers/deferred/operations.js';
import { TriggerEngine } from '../../src/triggers/engine/engine.js';
import { InProcessRunner } from '../../src/triggers/in-process-runner.js';
import { listTriggerRecords } from '../../src/triggers/list.js';
import { pruneTriggerHistory } from '../../src/triggers/retention.js';
import { Schedules } from '../../src/triggers/schedules/schedules.js';
import { WebhookIngress } from '../../src/triggers/webhook/webhook-ingress.js';
import type { World } from '../../src/world/world.js';
import { memoryWorlds, refusal } from '../support/public-arguments.js';

const memoryWorld = memoryWorlds();

const world = (): World => memoryWorld('trigger-args');

type Loose = (...args: unknown[]) => unknown;
const loose = (fn: unknown): Loose => fn as Loose;
const make =
  (C: unknown) =>
  (...args: unknown[]) =>
    new (C as new (...a: unknown[]) => unknown)(...args);

describe('public arguments of the trigger entries', () => {
  it('constructors refuse a misspelt option, suggesting the one meant', async () => {
    const w = world();
    const runner = new InProcessRunner(w);
    for (const [call, path, meant] of [
      [() => make(TriggerEngine)({ world: w, runner, twn: 'jobs' }), 'options.twn', 'twin'],
      [() => make(Schedules)({ world: w, runer: runner }), 'options.runer', 'runner'],
      [() => make(InProcessRunner)(w, { routine: {} }), 'options.routine', 'routines'],
      [() => make(WebhookIngress)({ maxBodyByte: 5 }), 'options.maxBodyByte', 'maxBodyBytes'],
      [() => make(CalendarSource)({ pendingLease: 5 }), 'options.pendingLease', undefined],
    ] as const)
      expect(await refusal(call)).toMatchObject({
        code: 'INVALID_ARGUMENT',
        path,
        message: expect.stringContaining(
          meant === undefined ? 'unknown option' : `(did you mean "${meant}"?)`,
        ),
      });
    for (const [call, path] of [
      [() => make(InProcessRunner)(w, { fulfil: async () => ({}) }), 'options.fulfil'],
      [() => make(WebhookIngress)(null), 'options'],
      [() => make(CalendarSource)(null), 'options'],
      [() => make(CalendarSource)({ name: 5 }), 'options.name'],
      [() => make(WebhookIngress)({ name: '' }), 'options.name'],
    ] as const)
      expect(await refusal(call)).toMatchObject({ code: 'INVALID_ARGUMENT', path });
    expect(new CalendarSource({ name: 'cal' }).name).toBe('cal');
    expect(new WebhookIngress({ name: 'hooks' }).name).toBe('hooks');
  });

  it('listings, prune and the dispatch operations refuse what is no world, a misspelt option and an id that is no text', async () => {
    const w = world();
    for (const [call, path] of [
      [() => loose(listTriggerRecords)(undefined), 'world'],
      [() => loose(listTriggerRecords)(w, { limt: 5 }), 'options.limt'],
      [() => loose(listDispatches)({}), 'world'],
      [() => loose(listDispatches)(w, { tenat: 'acme' }), 'query.tenat'],
      [() => loose(pruneTriggerHistory)(w, { olderThanMs: 0, twn: 'jobs' }), 'options.twn'],
      [() => loose(pruneTriggerHistory)(null, { olderThanMs: 0 }), 'world'],
      [() => loose(inspectDispatch)(w), 'id'],
      [() => loose(cancelDispatch)(w, 5), 'id'],
      [() => loose(cancelDispatch)(w, `dsp_${'0'.repeat(32)}`, { twn: 'x' }), 'target.twn'],
    ] as const)
      expect(await refusal(call)).toMatchObject({ code: 'INVALID_ARGUMENT', path });
    expect(await listTriggerRecords(w, { limit: 5 })).toEqual([]);
    expect(await refusal(() => inspectDispatch(w, 'dsp_nope'))).toMatchObject({
      code: 'UNKNOWN_DISPATCH',
    });
  });

  it('the child runner, the work kinds, tenantOf and checkDispatchOptions refuse what they cannot use', async () => {
    for (const [call, path] of [
      [() => make(ChildProcessRunner)({ module: 'routines.mjs', timout: 1000 }), 'options.timout'],
      [() => make(RoutineRegistry)({ fulfil: () => 1 }), 'routines'],
      [() => make(FileRunLock)(), 'dir'],
      [() => make(FileRunLock)(5), 'dir'],
      [() => loose(scheduleWork)(), 'schedules'],
      [() => loose(listEnabledSchedules)(undefined, 'acme'), 'schedules'],
      [() => loose(deferredDispatchWork)(), 'engine'],
      [() => loose(tenantOf)(), 'context'],
      [() => loose(tenantOf)({ kind: 'tenant', tenantId: 'acme' }), 'context'],
      [() => loose(checkDispatchOptions)({ dely: 5 }), 'dispatch.dely'],
    ] as const)
      expect(await refusal(call)).toMatchObject({ code: 'INVALID_ARGUMENT', path });
    expect(tenantOf(SYSTEM_CONTEXT)).toBeNull();
    expect(tenantOf(tenantContext({ tenantId: 'acme', may: ['read'] }))).toBe('acme');
    expect(new RoutineRegistry().ids()).toEqual([]);
  });
});
