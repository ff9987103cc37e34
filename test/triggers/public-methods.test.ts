// The instance methods of what the trigger entries hand out (the engine, the in-process runner, the
// calendar and webhook sources, the dispatch work kind, Schedules) refuse what they cannot use up
// front, naming the argument. Before: a misspelt option was dropped ({expectedRevison} changed a
// schedule unfenced, {limt} paged everything, {replayGard} ingested unguarded), an id that is no
// text answered "none" or failed deep in the store as get(type, id)'s, a missing argument was a
// TypeError, a refusal without its error poisoned the engine's stop, and
// pruneSettled({olderThanMs: 0}) never returned. Each refusal sits beside a call that goes
// through, so none is over-broad.
import { describe, expect, it } from 'vitest';
import { TwinError } from '../../src/errors.js';
import { VirtualClock } from '../../src/world/clock.js';
import { CalendarSource } from '../../src/triggers/calendar/calendar-source.js';
import { deferredDispatchWork } from '../../src/triggers/deferred/dispatch-work.js';
import { TriggerEngine } from '../../src/triggers/engine/engine.js';
import { InProcessRunner } from '../../src/triggers/in-process-runner.js';
import { recordRoutine } from '../../src/triggers/routines/record-routine.js';
import { scheduleKey } from '../../src/triggers/schedules/declaration.js';
import { claimItem, scheduleWork } from '../../src/triggers/schedules/schedule-work.js';
import { Schedules } from '../../src/triggers/schedules/schedules.js';
import { WebhookIngress } from '../../src/triggers/webhook/webhook-ingress.js';
import { memoryWorlds, refusal } from '../support/public-arguments.js';
import { envelope } from './support.js';

const memoryWorld = memoryWorlds();
const T0 = '2026-03-02T00:00:00.000Z';

type Loose = Record<string, (...args: unknown[]) => unknown>;
const loose = (o: object): Loose => o as unknown as Loose;

type Case = readonly [call: () => unknown, path: string, says: string];

async function expectRefusals(cases: readonly Case[], code = 'INVALID_ARGUMENT'): Promise<void> {
  for (const [call, path, says] of cases)
    expect(await refusal(call), `${path}: ${says}`).toMatchObject({
      code,
      path,
      message: expect.stringContaining(says),
    });
}

/**
 * Rejects after `ms` of wall time, if the loop ever yields to timers: on the in-memory store the
 * old endless prune never did, so without the fix this test hangs the file rather than failing.
 */
function within<T>(ms: number, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

async function started(): Promise<{
  engine: TriggerEngine;
  runner: InProcessRunner;
  calendar: CalendarSource;
}> {
  const world = memoryWorld('trigger-methods', new VirtualClock(T0));
  const runner = new InProcessRunner(world).register('record', recordRoutine('triggers'));
  const engine = new TriggerEngine({ world, runner });
  const calendar = new CalendarSource();
  engine.registerSource(calendar);
  engine.registerRoute({
    triggerId: 'order.paid',
    routineId: 'record',
    buildInput: (e) => e.payload,
  });
  await engine.start();
  return { engine, runner, calendar };
}

describe('instance methods of the trigger entries', () => {
  it('the engine refuses a misspelt route or ingest option, and ids, runs and refusals it cannot use', async () => {
    const { engine } = await started();
    const e = loose(engine);
    const build = (): null => null;
    await expectRefusals([
      [
        () =>
          e.registerRoute!({
            triggerId: 'a',
            routineId: 'record',
            buildInput: build,
            routine: 'x',
          }),
        'route.routine',
        '(did you mean "routineId"?)',
      ],
      [() => e.hasRoute!(5), 'triggerId', 'must be a non-empty string, got 5'],
      [() => e.routeFor!(), 'triggerId', 'got undefined'],
      [() => e.record!(5, 'k'), 'tenantId', 'tenantId (number) is not valid'],
      [() => e.record!('acme'), 'dedupeKey', 'dedupeKey must be a non-empty string'],
      [
        () => e.ingest!(envelope({ triggerId: 'order.paid' }), undefined, { replayGard: {} }),
        'options.replayGard',
        '(did you mean "replayGuard"?)',
      ],
      [
        () => e.ingest!(envelope({ triggerId: 'order.paid' }), undefined, 5),
        'options',
        'options must be an object {replayGuard, dispatch}, got 5',
      ],
      [() => e.runDispatched!(), 'run', 'run must be the claimed run'],
      [() => e.runDispatched!({}, T0), 'run', 'a dispatch step answered'],
      [() => e.recordRefusal!(), 'refusal', 'refusal must be an object {tenantId, error'],
      [() => e.recordRefusal!({}), 'refusal.tenantId', 'is not valid'],
      [
        () => e.recordRefusal!({ tenantId: 'acme', provider: 'stripe' }),
        'refusal.error',
        'must be the TwinError the packet was refused with, got undefined',
      ],
      [() => e.takeOver!(5), 'recordId', 'recordId must be a non-empty string, got 5'],
    ]);
    // What goes through: the same calls as meant.
    engine.registerRoute({ triggerId: 'a', routineId: 'record', buildInput: build });
    expect(engine.hasRoute('a')).toBe(true);
    expect(engine.routeFor('order.paid')?.routineId).toBe('record');
    const answer = await engine.ingest(envelope({ triggerId: 'order.paid' }), undefined, {});
    // Null stays no options (engine-lifecycle.test.ts).
    expect(
      await engine.ingest(
        envelope({ triggerId: 'order.paid', dedupeKey: 'k2' }),
        undefined,
        null as never,
      ),
    ).toMatchObject({ status: 'triggered' });
    expect(answer.status).toBe('triggered');
    expect(await engine.record('acme', answer.dedupeKey)).toMatchObject({ state: 'triggered' });
    expect(await engine.record('acme', 'never-seen')).toBeUndefined();
    await engine.recordRefusal({
      tenantId: 'acme',
      error: new TwinError('BAD_SIGNATURE', 'no match'),
    });
    expect(await engine.takeOver('trg_none')).toBeUndefined();
    // The refusals above left nothing behind that would fail the stop's last window write.
    await engine.stop({ graceMs: 0 });
  });

  it('pruneSettled({olderThanMs: 0}) returns instead of moving past its own cursor writes forever', async () => {
    const { engine } = await started();
    await engine.ingest(envelope({ triggerId: 'order.paid' }));
    const report = await within(5_000, engine.pruneSettled({ olderThanMs: 0 }));
    expect(report).toMatchObject({ records: 1 });
    expect(await within(5_000, engine.pruneSettled({ olderThanMs: 0 }))).toMatchObject({
      records: 0,
    });
  });

  it('the runner, the calendar, the webhook ingress and the dispatch work refuse what is no request, id, engine, endpoint key or claim', async () => {
    const { engine, runner, calendar } = await started();
    const work = deferredDispatchWork(engine);
    await expectRefusals([
      [() => loose(runner).run!(), 'request', 'runner.run(request): request must be'],
      [() => loose(runner).run!({ routineId: 5 }), 'request.routineId', 'got 5'],
      [() => loose(calendar).subscription!(), 'tenantId', 'tenantId (missing) is not valid'],
      [() => loose(calendar).subscription!('acme', 5), 'triggerId', 'triggerId (number)'],
      [() => loose(new CalendarSource()).connect!(), 'engine', 'engine must be a TriggerEngine'],
      [() => loose(work).step!(5), 'id', 'id must be a dispatch id (dsp_…), got 5'],
      [() => loose(work).execute!(), 'claimed', 'claimed must be {id, run, scheduledAt}'],
    ]);
    expect(await work.step('dsp_none')).toEqual({ kind: 'idle' });
    const endpoint = {
      provider: 'stripe',
      triggerId: 'order.paid',
      scheme: 'stripe' as const,
      resolveSecrets: () => [],
    };
    await expectRefusals(
      [
        [
          () => new WebhookIngress().addEndpoint({ ...endpoint, tolerenceSec: 5 } as never),
          'endpoint.tolerenceSec',
          '(did you mean "toleranceSec"?)',
        ],
      ],
      'INVALID_CONFIG',
    );
    expect(
      await runner.run({
        routineId: 'record',
        runKey: 'k',
        attempt: 1,
        recordId: 'trg_x',
        input: { n: 1 },
        envelope: envelope(),
      }),
    ).toBeDefined();
    expect(await calendar.subscription('acme', 'nightly')).toBeUndefined();
    const hooks = new WebhookIngress().addEndpoint({ ...endpoint, toleranceSec: 5 });
    expect(hooks.endpointFor('acme', 'stripe')?.toleranceSec).toBe(5);
  });

  it('the webhook ingress refuses a tenant or provider that is no text, not as an unknown endpoint', async () => {
    const world = memoryWorld('trigger-hooks', new VirtualClock(T0));
    const engine = new TriggerEngine({ world, runner: new InProcessRunner(world) });
    const hooks = new WebhookIngress({
      endpoints: [
        {
          provider: 'stripe',
          triggerId: 'order.paid',
          scheme: 'stripe',
          resolveSecrets: () => ['whsec_x'],
        },
      ],
    });
    engine.registerSource(hooks);
    await engine.start();
    const packet = {
      tenantId: 'acme',
      scopeId: 'acme',
      provider: 'stripe',
      headers: {},
      rawBody: '{}',
    };
    await expectRefusals([
      [
        () => hooks.handle({ ...packet, provider: undefined } as never),
        'provider',
        'got undefined',
      ],
      [() => hooks.answer({ ...packet, tenantId: 5 } as never), 'tenantId', 'must be a string'],
    ]);
    await expectRefusals(
      [[() => hooks.handle({ ...packet, provider: 'paypal' }), 'provider', 'no webhook endpoint']],
      'UNKNOWN_ENDPOINT',
    );
    // Text naming a known endpoint goes on to the signature check.
    expect(await refusal(() => hooks.handle(packet))).toMatchObject({ code: 'MISSING_HEADER' });
  });

  it('Schedules refuses misspelt options, ids that are no text and what is no reservation', async () => {
    const clock = new VirtualClock(T0);
    const world = memoryWorld('schedule-methods', clock);
    const runner = new InProcessRunner(world).register('record', recordRoutine('triggers'));
    const schedules = new Schedules({ world, runner, owner: 'host-a' });
    const s = loose(schedules);
    const input = { tenantId: 'acme', scheduleId: 'nightly', cron: '* * * * *' };
    await expectRefusals([
      [
        () => s.declare!(input, { expectedRevison: 0 }),
        'options.expectedRevison',
        '(did you mean "expectedRevision"?)',
      ],
      [() => s.declare!(input, null), 'options', 'got null'],
    ]);
    const declared = await schedules.declare(input, { expectedRevision: 0 });
    const key = scheduleKey('acme', 'nightly');
    const nominalAt = '2026-03-02T00:01:00.000Z';
    await expectRefusals([
      [
        () => s.pause!('acme', 'nightly', { expectedRevison: 1 }),
        'options.expectedRevison',
        'schedules.pause(tenantId, scheduleId, options): unknown option',
      ],
      [() => s.resume!('acme', 'nightly', 5), 'options', 'got 5'],
      [
        () =>
          s.claim!({
            tenantId: 'acme',
            scheduleId: 'nightly',
            nominalAt,
            expectedRevision: 1,
            ownr: 'x',
          }),
        'request.ownr',
        '(did you mean "owner"?)',
      ],
      [() => s.claimDue!(), 'key', 'key must be a non-empty string, got undefined'],
      [() => s.claimDue!(key, { ownr: 'x' }), 'options.ownr', '(did you mean "owner"?)'],
      [() => s.claimDue!(key, { owner: 5 }), 'options.owner', 'got 5'],
      [() => s.reserve!(5), 'occurrenceId', 'got 5'],
      [() => s.reserve!('occ_none', null), 'options', 'got null'],
      [() => s.heartbeat!(), 'reservation', 'pass the reservation a claim or reserve answered'],
      [() => s.run!({}), 'reservation', 'pass the reservation a claim or reserve answered'],
      [
        () => s.backfill!({ tenantId: 'acme', scheduleId: 'nightly', form: T0, to: T0 }),
        'request.form',
        '(did you mean "from"?)',
      ],
      [() => s.history!({ tenantId: 'acme', limt: 5 }), 'query.limt', '(did you mean "limit"?)'],
      [
        () => s.prune!({ tenantId: 'acme', befor: T0 }),
        'options.befor',
        '(did you mean "before"?)',
      ],
      [() => s.inspect!('acme', 'nightly', { nxt: 3 }), 'options.nxt', '(did you mean "next"?)'],
      [() => s.inspect!('acme', 'nightly', null), 'options', 'got null'],
      [() => claimItem(schedules, { id: 'dsp_1', dueAt: T0 }, 'w1'), 'item', 'got "dsp_1"'],
      [() => claimItem(schedules, `schedule:${key}@${T0}` as never, 'w1'), 'item', 'due item'],
      [() => claimItem(schedules, { id: 'fire:occ_x', dueAt: T0 }, 5 as never), 'owner', 'got 5'],
      [
        () => loose(scheduleWork(schedules)).run!({ id: 'fire:occ_x', dueAt: T0 }),
        'owner',
        'got undefined',
      ],
    ]);
    // What goes through.
    expect(
      await schedules.pause('acme', 'nightly', { expectedRevision: declared.revision }),
    ).toMatchObject({ enabled: false });
    expect(await schedules.resume('acme', 'nightly')).toMatchObject({ enabled: true });
    await clock.set(nominalAt);
    const claim = await schedules.claim({
      tenantId: 'acme',
      scheduleId: 'nightly',
      nominalAt,
      expectedRevision: 3,
    });
    expect(claim).toMatchObject({ claimed: true });
    const held = 'reservation' in claim ? claim.reservation : undefined;
    expect(held).toBeDefined();
    expect(await schedules.heartbeat(held!)).toBe(true);
    expect(await schedules.run(held!)).toMatchObject({ occurrenceId: held!.occurrenceId });
    expect(await schedules.claimDue(key, { owner: 'host-a' })).toHaveProperty('more', false);
    expect(await schedules.reserve('occ_none', { owner: 'host-a' })).toBeUndefined();
    expect(
      await schedules.backfill({ tenantId: 'acme', scheduleId: 'nightly', from: T0, to: T0 }),
    ).toMatchObject({ tenantId: 'acme' });
    expect((await schedules.history({ tenantId: 'acme', limit: 1 })).items).toHaveLength(1);
    expect(await schedules.prune({ tenantId: 'acme', before: T0 })).toMatchObject({ removed: 0 });
    expect((await schedules.inspect('acme', 'nightly', { next: 2 })).next).toHaveLength(2);
    expect(await claimItem(schedules, { id: 'fire:occ_none', dueAt: T0 }, 'w1')).toBeUndefined();
  });
});
