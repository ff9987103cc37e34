// The WorkKind port's conformance suite (docs/work.md), run against each implementation on every
// backend: due items come earliest first and only once due, `nextDue` names the earliest, and —
// for a kind whose runs hold a lease — one claim at a time, a take-over only after the lease
// lapses, and a stale finish refused. Kinds are built on dueIndexWork (src/work/due-index-work.ts);
// the lease kind here claims with the same lease helpers the kernel's kinds use.
import { afterAll, describe, expect, it } from 'vitest';
import { TwinError } from '../../src/errors.js';
import { recordKind } from '../../src/state/record-kind.js';
import {
  DUE_FIELD,
  DUE_INDEX,
  claimFields,
  leaseFree,
  leaseOf,
  releaseFields,
  stillHeld,
} from '../../src/work/lease.js';
import { dueIndexWork } from '../../src/work/due-index-work.js';
import type { WorkKind } from '../../src/work/work-kind.js';
import { VirtualClock, isoAt } from '../../src/world/clock.js';
import { commit, skip } from '../../src/world/decision.js';
import type { Twin } from '../../src/world/twin.js';
import { openWorld, type World } from '../../src/world/world.js';
import { InProcessRunner } from '../../src/triggers/in-process-runner.js';
import { TriggerEngine } from '../../src/triggers/engine/engine.js';
import { runTakeoverWork } from '../../src/triggers/engine/run-work.js';
import { RECORD_TYPE } from '../../src/triggers/trigger-records.js';
import { deferredDispatchWork } from '../../src/triggers/deferred/dispatch-work.js';
import { DISPATCH_TYPE } from '../../src/triggers/deferred/dispatch-record.js';
import { Schedules } from '../../src/triggers/schedules/schedules.js';
import { scheduleWork } from '../../src/triggers/schedules/schedule-work.js';
import { FIRE_TYPE } from '../../src/triggers/schedules/fire-record.js';
import { backends } from '../support/backends.js';

const T0 = Date.parse('2026-03-01T00:00:00.000Z');

interface Implementation {
  readonly name: string;
  /** The kind over a fresh world, and how to put a due record of its type into the store. */
  open(world: World): { kind: WorkKind; twin: Twin; type: string; itemId?: (id: string) => string };
}

const implementations: Implementation[] = [
  {
    name: 'trigger-run',
    open(world) {
      const engine = new TriggerEngine({ world, runner: new InProcessRunner(world) });
      return { kind: runTakeoverWork(engine), twin: engine.twin, type: RECORD_TYPE };
    },
  },
  {
    name: 'trigger-dispatch',
    open(world) {
      const engine = new TriggerEngine({ world, runner: new InProcessRunner(world) });
      return { kind: deferredDispatchWork(engine), twin: engine.twin, type: DISPATCH_TYPE };
    },
  },
  {
    name: 'schedule',
    open(world) {
      const schedules = new Schedules({ world, owner: 'conformance' });
      return {
        kind: scheduleWork(schedules),
        twin: schedules.twin,
        type: FIRE_TYPE,
        itemId: (id) => `fire:${id}`,
      };
    },
  },
  {
    name: 'lease kind (dueIndexWork)',
    open(world) {
      const twin = world.twin('jobs');
      return { kind: leaseKind(twin, world.clock.now.bind(world.clock)).kind, twin, type: JOB };
    },
  },
];

// ---- a kind whose runs hold a lease, built on dueIndexWork ----------------------------------

const JOB = 'conformance_job';
interface JobFields {
  readonly state: 'ready' | 'running' | 'done';
  readonly owner: string | null;
  readonly leaseUntil: string | null;
  readonly fence: number;
  readonly dueAt: string | null;
  readonly finishedBy?: string;
}
const jobKind = recordKind<JobFields>({
  type: JOB,
  indexes: { [DUE_INDEX]: DUE_FIELD },
});

function leaseKind(twin: Twin, now: () => number, leaseMs = 1000) {
  jobKind.declareOn(twin);
  const claim = (id: string, owner: string) =>
    twin.applyAtomic((view) => {
      const job = jobKind.read(view, id);
      if (job === undefined || job.state === 'done' || !leaseFree(leaseOf(job), now()))
        return skip(undefined);
      const { fields, held } = claimFields(leaseOf(job), owner, now(), leaseMs);
      return commit([jobKind.write('job.claim', id, { ...fields, state: 'running' })], held);
    });
  const finish = (id: string, held: { owner: string; fence: number }) =>
    twin.applyAtomic((view) => {
      const job = jobKind.read(view, id)!;
      if (!stillHeld(leaseOf(job), held))
        throw new TwinError('STALE_OWNER', `job ${id} is no longer held by ${held.owner}`);
      return commit([
        jobKind.write('job.finish', id, {
          ...releaseFields(null),
          state: 'done',
          finishedBy: held.owner,
        }),
      ]);
    });
  const kind = dueIndexWork({
    name: 'conformance-job',
    twin,
    sources: [{ kind: jobKind }],
    held: { kind: jobKind, states: ['running'] },
    run: async (item, context) => {
      const held = (await claim(item.id, context.owner)).result;
      if (held === undefined) return undefined;
      await finish(item.id, held);
      return { kind: 'conformance-job', id: item.id, outcome: 'done' };
    },
  });
  return { kind, claim, finish };
}

// ---- the suite ------------------------------------------------------------------------------

for (const backendCase of backends) {
  describe(`WorkKind conformance on ${backendCase.name}`, () => {
    const cleanups: (() => void)[] = [];
    afterAll(() => cleanups.forEach((c) => c()));
    const world = (): { world: World; clock: VirtualClock } => {
      const { backend, cleanup } = backendCase.create();
      cleanups.push(cleanup);
      const clock = new VirtualClock(T0);
      return { world: openWorld({ root: ':memory:', clock, seed: 'conformance', backend }), clock };
    };

    it.each(implementations.map((i) => [i.name, i] as const))(
      '%s: due items come earliest first, only once due, and nextDue names the earliest',
      async (_name, impl) => {
        const { world: w } = world();
        const { kind, twin, type, itemId = (id: string) => id } = impl.open(w);
        expect(await kind.nextDue()).toBeUndefined();
        expect(await kind.due(T0 + 10_000, 10)).toEqual([]);
        const at = (s: number) => isoAt(T0 + s * 1000);
        for (const [id, due] of [
          ['c', 3],
          ['a', 1],
          ['d', 100],
          ['b', 2],
        ] as const)
          await twin.applyWrite({
            operation: 'conformance.seed',
            subjectType: type,
            subjectId: `conf_${id}`,
            fields: { [DUE_FIELD]: at(due), tenantId: 'default', state: 'ready' },
            actor: 'system',
          });
        expect(await kind.nextDue()).toBe(T0 + 1000);
        expect(await kind.due(T0, 10)).toEqual([]);
        const due = await kind.due(T0 + 5000, 10);
        expect(due.map((d) => [d.id, d.dueAt])).toEqual([
          [itemId('conf_a'), at(1)],
          [itemId('conf_b'), at(2)],
          [itemId('conf_c'), at(3)],
        ]);
        expect((await kind.due(T0 + 5000, 2)).map((d) => d.id)).toEqual([
          itemId('conf_a'),
          itemId('conf_b'),
        ]);
        await w.close();
      },
    );

    it('a leased kind: one claim at a time, a take-over only after the lease lapses, a stale finish refused', async () => {
      const { world: w, clock } = world();
      const twin = w.twin('jobs');
      const { kind, claim, finish } = leaseKind(twin, () => clock.now());
      await twin.applyWrite(
        jobKind.write('job.add', 'job_1', {
          state: 'ready',
          owner: null,
          leaseUntil: null,
          fence: 0,
          dueAt: isoAt(T0),
        }),
      );
      // Two claimers at once: one claim.
      const [first, second] = await Promise.all([claim('job_1', 'w1'), claim('job_1', 'w2')]);
      const held = [first.result, second.result].filter((h) => h !== undefined);
      expect(held).toHaveLength(1);
      expect(held[0]!.owner).toBe('w1');
      // Held: not due while the lease runs, and nobody else may claim it.
      expect(await kind.due(T0 + 500, 10)).toEqual([]);
      expect(await kind.inFlight!()).toBe(T0 + 1000);
      expect((await claim('job_1', 'w2')).result).toBeUndefined();
      // The lease lapses: due again, and taken over by the next claimer.
      await clock.advance(1000);
      expect((await kind.due(clock.now(), 10)).map((d) => d.id)).toEqual(['job_1']);
      const report = await kind.run(
        { id: 'job_1', dueAt: isoAt(clock.now()) },
        { owner: 'w2', leaseMs: 1000 },
      );
      expect(report).toEqual({ kind: 'conformance-job', id: 'job_1', outcome: 'done' });
      // The first owner's finish is stale: refused, and nothing moves.
      const before = await twin.head();
      await expect(finish('job_1', held[0]!)).rejects.toMatchObject({ code: 'STALE_OWNER' });
      expect(await twin.head()).toBe(before);
      expect((await twin.read((v) => jobKind.read(v, 'job_1')))?.finishedBy).toBe('w2');
      expect(await kind.nextDue()).toBeUndefined();
      await w.close();
    });
  });
}
