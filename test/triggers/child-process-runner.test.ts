// What only the child-process runner has: routines run in a real child process (one per run); a
// child SIGKILLed mid-run is a failed attempt that recovery runs again; a routine past timeoutMs is
// killed and failed; the run lock the child holds refuses an attempt while a live process holds
// the record's lock and is taken over from a dead holder; an unloadable module is INVALID_CONFIG.
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { TriggerEngine } from '../../src/triggers/engine/engine.js';
import { ChildProcessRunner } from '../../src/triggers/child-runner/child-process-runner.js';
import { FileRunLock } from '../../src/triggers/child-runner/file-run-lock.js';
import { recordId } from '../../src/triggers/trigger-records.js';
import { VirtualClock } from '../../src/world/clock.js';
import { openWorld, type World } from '../../src/world/world.js';
import { envelope, expectRefusal, T0 } from './support.js';

const MODULE = resolve('dist/test/support/conformance-routines.js');
const dirs: string[] = [];
const worlds: World[] = [];
afterEach(async () => {
  for (const w of worlds.splice(0)) await w.close();
});
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'twinworld-child-runner-'));
  dirs.push(d);
  return d;
}

async function engineWith(runner: ChildProcessRunner) {
  const world = openWorld({ root: ':memory:', clock: new VirtualClock(T0), seed: 'child' });
  worlds.push(world);
  const engine = new TriggerEngine({ world, runner });
  for (const routineId of ['crash', 'hang', 'pid', 'echo'])
    engine.registerRoute({ triggerId: routineId, routineId, buildInput: (e) => e.payload });
  await engine.start();
  const ingest = (triggerId: string, key: string) =>
    engine.ingest(envelope({ triggerId, eventId: key, dedupeKey: key, payload: null }));
  return { engine, ingest };
}

describe('ChildProcessRunner', () => {
  it('runs each routine in a child process of its own', async () => {
    const { ingest } = await engineWith(new ChildProcessRunner({ module: MODULE }));
    const first = await ingest('pid', 'k_pid_1');
    const second = await ingest('pid', 'k_pid_2');
    const pids = [first, second].map((a) => (a as { routineResult: number }).routineResult);
    expect(pids.every((p) => Number.isInteger(p) && p !== process.pid)).toBe(true);
    expect(pids[0]).not.toBe(pids[1]);
  });

  it('a child SIGKILLed mid-run fails the attempt (ROUTINE_CRASHED); recovery runs it again, taking over the dead child’s lock', async () => {
    const lockDir = tempDir();
    const { engine, ingest } = await engineWith(
      new ChildProcessRunner({ module: MODULE, lockDir }),
    );
    const refused = await expectRefusal(() => ingest('crash', 'k_crash'), 'ROUTINE_FAILED');
    expect(refused.message).toContain('ROUTINE_CRASHED');
    expect(await engine.record('acme', 'k_crash')).toMatchObject({
      state: 'failed',
      attempts: 1,
      error: 'ROUTINE_CRASHED',
    });
    // The killed child never released its lock: the file of a dead holder is left behind.
    expect(readdirSync(lockDir).filter((f) => f.endsWith('.lock'))).toHaveLength(1);
    const report = await engine.recoverIncomplete('acme');
    expect(report.recovered).toMatchObject([
      { from: 'failed', attempt: 2, status: 'triggered', routineResult: { survived: 2 } },
    ]);
    expect(await engine.record('acme', 'k_crash')).toMatchObject({
      state: 'triggered',
      attempts: 2,
    });
    expect(readdirSync(lockDir)).toEqual([]);
  });

  it('a routine past timeoutMs is killed and its attempt failed (ROUTINE_TIMEOUT)', async () => {
    const { engine, ingest } = await engineWith(
      new ChildProcessRunner({ module: MODULE, timeoutMs: 300 }),
    );
    const refused = await expectRefusal(() => ingest('hang', 'k_hang'), 'ROUTINE_FAILED');
    expect(refused.message).toContain('ROUTINE_TIMEOUT');
    expect(await engine.record('acme', 'k_hang')).toMatchObject({
      state: 'failed',
      error: 'ROUTINE_TIMEOUT',
    });
  });

  it('a run whose record lock a live process holds is refused (ROUTINE_LOCKED), and runs once it is released', async () => {
    const lockDir = tempDir();
    const { engine, ingest } = await engineWith(
      new ChildProcessRunner({ module: MODULE, lockDir }),
    );
    // This test's process stands for a child still executing the record after its host died.
    const held = await new FileRunLock(lockDir).acquire(recordId('acme', 'k_locked'));
    expect(held).toBeDefined();
    expect(await new FileRunLock(lockDir).acquire(recordId('acme', 'k_locked'))).toBeUndefined();
    const refused = await expectRefusal(() => ingest('echo', 'k_locked'), 'ROUTINE_FAILED');
    expect(refused.message).toContain('ROUTINE_LOCKED');
    await held!.release();
    expect(await ingest('echo', 'k_locked')).toMatchObject({ status: 'triggered', attempt: 2 });
  });

  it('a lost claim (an aborted run) kills the child', async () => {
    const runner = new ChildProcessRunner({ module: MODULE });
    const controller = new AbortController();
    const running = runner.run({
      routineId: 'hang',
      runKey: 'k_abort',
      input: null,
      envelope: envelope(),
      attempt: 1,
      recordId: 'rec_abort',
      signal: controller.signal,
    });
    controller.abort();
    await expect(running).rejects.toMatchObject({ name: 'ABORTED' });
  });

  it('a result that is not JSON fails the run as INVALID_RESULT, from a module of plain JavaScript', async () => {
    const dir = tempDir();
    const module = join(dir, 'routines.mjs');
    writeFileSync(module, 'export const routines = { big: () => 10n ** 30n, ok: () => "fine" };\n');
    const runner = new ChildProcessRunner({ module });
    const request = {
      runKey: 'k_big',
      input: null,
      envelope: envelope(),
      attempt: 1,
      recordId: 'rec_big',
    };
    await expect(runner.run({ ...request, routineId: 'big' })).rejects.toMatchObject({
      name: 'INVALID_RESULT',
    });
    expect(await runner.run({ ...request, routineId: 'ok' })).toBe('fine');
  });

  it('a module that cannot be loaded is INVALID_CONFIG naming it', async () => {
    const dir = tempDir();
    const bad = join(dir, 'routines.mjs');
    writeFileSync(bad, 'export const nothing = 1;\n');
    const runner = new ChildProcessRunner({ module: bad });
    const refused = await expectRefusal(() => runner.ids(), 'INVALID_CONFIG', 'module');
    expect(refused.message).toContain(bad);
    expect(refused.message).toContain('exports no `routines`');
    // A failed listing is not kept: once the module is fixed, the same runner finds its routines.
    writeFileSync(bad, 'export const routines = { fixed: () => 1 };\n');
    expect(await runner.ids()).toEqual(['fixed']);
    expect(await new ChildProcessRunner({ module: MODULE }).ids()).toEqual([
      'echo',
      'declined',
      'flaky',
      'crash',
      'hang',
      'pid',
    ]);
  });
});
