// One suite, run unchanged against every routine runner: the in-process runner (routines
// registered as functions) and the child-process runner (the same routines loaded from their
// compiled module in a real child process). Through a real engine: a result is returned and
// recorded, a business failure is a result, a throw fails the record and a retry runs it again,
// an unknown routine is refused naming it and saying how to register it.
import { resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { JsonValue } from '../../src/log/json-value.js';
import { TriggerEngine } from '../../src/triggers/engine/engine.js';
import { InProcessRunner, RUN_TYPE } from '../../src/triggers/in-process-runner.js';
import { ChildProcessRunner } from '../../src/triggers/child-runner/child-process-runner.js';
import type { RoutineRunner } from '../../src/triggers/runner.js';
import { VirtualClock } from '../../src/world/clock.js';
import { openWorld, type World } from '../../src/world/world.js';
import { routines } from '../support/conformance-routines.js';
import { envelope, expectRefusal, T0 } from './support.js';

const MODULE = resolve('dist/test/support/conformance-routines.js');

interface RunnerCase {
  readonly name: string;
  make(world: World): RoutineRunner;
  /** How the refusal of an unknown routine tells the host to add one. */
  readonly howToRegister: RegExp;
}

const cases: RunnerCase[] = [
  {
    name: 'InProcessRunner',
    make(world) {
      const runner = new InProcessRunner(world);
      for (const id of ['echo', 'declined', 'flaky', 'pid']) runner.register(id, routines[id]!);
      return runner;
    },
    howToRegister: /register it with runner\.register\("nope", fn\)/,
  },
  {
    name: 'ChildProcessRunner',
    make: () => new ChildProcessRunner({ module: MODULE }),
    howToRegister: /export it from .*conformance-routines\.js as routines\["nope"\]/,
  },
];

const worlds: World[] = [];
afterEach(async () => {
  for (const w of worlds.splice(0)) await w.close();
});

async function engineWith(runnerCase: RunnerCase) {
  const world = openWorld({ root: ':memory:', clock: new VirtualClock(T0), seed: 'runners' });
  worlds.push(world);
  const runner = runnerCase.make(world);
  const engine = new TriggerEngine({ world, runner });
  for (const routineId of ['echo', 'declined', 'flaky', 'pid', 'nope'])
    engine.registerRoute({ triggerId: routineId, routineId, buildInput: (e) => e.payload });
  await engine.start();
  const ingest = (triggerId: string, key: string, payload: JsonValue = { n: 1 }) =>
    engine.ingest(envelope({ triggerId, eventId: key, dedupeKey: key, payload }));
  return { world, runner, engine, ingest };
}

for (const runnerCase of cases) {
  describe(`routine runner conformance: ${runnerCase.name}`, () => {
    it("answers the routine's result, recorded as the run's result", async () => {
      const { engine, ingest } = await engineWith(runnerCase);
      const answer = await ingest('echo', 'k_echo', { order: 'ord_1' });
      expect(answer).toMatchObject({
        status: 'triggered',
        routineId: 'echo',
        attempt: 1,
        routineResult: { echo: { order: 'ord_1' }, attempt: 1, runKey: 'k_echo' },
      });
      const [run] = await engine.twin.list(RUN_TYPE);
      expect(run!.fields).toMatchObject({
        routineId: 'echo',
        attempt: 1,
        state: 'succeeded',
        result: { echo: { order: 'ord_1' }, attempt: 1, runKey: 'k_echo' },
      });
    });

    it('a business failure is a result: the run finished', async () => {
      const { engine, ingest } = await engineWith(runnerCase);
      expect(await ingest('declined', 'k_declined')).toMatchObject({
        status: 'triggered',
        routineResult: { ok: false, reason: 'card_declined' },
      });
      expect(await engine.record('acme', 'k_declined')).toMatchObject({ state: 'triggered' });
    });

    it('a throw fails the record with the error named, and a retry of the delivery runs it again', async () => {
      const { engine, ingest } = await engineWith(runnerCase);
      const refused = await expectRefusal(() => ingest('flaky', 'k_flaky'), 'ROUTINE_FAILED');
      expect(refused.message).toContain('UPSTREAM_NOT_READY');
      expect(await engine.record('acme', 'k_flaky')).toMatchObject({
        state: 'failed',
        attempts: 1,
      });
      expect(await ingest('flaky', 'k_flaky')).toMatchObject({
        status: 'triggered',
        attempt: 2,
        routineResult: { attempt: 2 },
      });
      const runs = await engine.twin.list(RUN_TYPE);
      expect(runs.map((r) => [r.fields.attempt, r.fields.state, r.fields.error])).toEqual([
        [1, 'failed', 'UPSTREAM_NOT_READY'],
        [2, 'succeeded', null],
      ]);
    });

    it('an unknown routine is refused with UNKNOWN_ROUTINE naming it and how to register it', async () => {
      const { engine, runner, ingest } = await engineWith(runnerCase);
      const direct = await expectRefusal(
        () =>
          runner.run({
            routineId: 'nope',
            runKey: 'k_direct',
            input: null,
            envelope: envelope(),
            attempt: 1,
            recordId: 'rec_direct',
          }),
        'UNKNOWN_ROUTINE',
        'routineId',
      );
      expect(direct.message).toContain('"nope"');
      expect(direct.message).toMatch(runnerCase.howToRegister);
      // Through the engine the record is failed with the code, to be run again once registered.
      await expectRefusal(() => ingest('nope', 'k_nope'), 'ROUTINE_FAILED');
      expect(await engine.record('acme', 'k_nope')).toMatchObject({
        state: 'failed',
        error: 'UNKNOWN_ROUTINE',
      });
    });
  });
}
