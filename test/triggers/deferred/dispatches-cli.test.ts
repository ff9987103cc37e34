// `twinworld dispatches list | inspect | cancel` through the built binary, on a SQLite world whose
// dispatches were made by an engine that has since closed: the store alone answers.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeferredAnswer } from '../../../src/triggers/answer.js';
import { TriggerEngine } from '../../../src/triggers/engine/engine.js';
import { InProcessRunner } from '../../../src/triggers/in-process-runner.js';
import { openWorld } from '../../../src/world/world.js';
import { event } from './support.js';

const BIN = resolve('dist/src/cli/main.js');
let dir: string;
let root: string;
const ids: string[] = [];

function tw(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [BIN, 'dispatches', ...args, '--root', root], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'twinworld-dispatches-'));
  root = join(dir, 'world');
  // A world on the real clock, as the CLI opens it: the reminders are due in an hour.
  const world = openWorld({ root });
  const runner = new InProcessRunner(world).register('sync', (input) => input);
  const engine = new TriggerEngine({ world, runner });
  engine.registerRoute({
    triggerId: 'reminder',
    routineId: 'sync',
    buildInput: (e) => e.payload,
    dispatch: { delay: 3_600_000 },
  });
  engine.registerRoute({
    triggerId: 'sync',
    routineId: 'sync',
    buildInput: (e) => e.payload,
    dispatch: { debounce: { key: 'payload.customer', period: 60_000 }, ttl: 600_000 },
  });
  await engine.start();
  for (const [i, trigger, tenant] of [
    [1, 'reminder', 'acme'],
    [2, 'reminder', 'globex'],
    [3, 'sync', 'acme'],
    [4, 'sync', 'acme'],
  ] as const) {
    const answer = (await engine.ingest(
      event(i, { customer: 'cus_1', n: i }, { triggerId: trigger, tenantId: tenant }),
    )) as DeferredAnswer;
    if (!ids.includes(answer.dispatchId)) ids.push(answer.dispatchId);
  }
  await world.close();
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('twinworld dispatches', () => {
  it('lists newest first, by state and tenant, as a table or JSON', () => {
    const all = tw('list', '--json');
    expect(all.status).toBe(0);
    const rows = JSON.parse(all.stdout) as { dispatchId: string; state: string; pings: number }[];
    expect(rows.map((r) => [r.dispatchId, r.state, r.pings])).toEqual([
      [ids[2], 'debounced', 2],
      [ids[1], 'delayed', 1],
      [ids[0], 'delayed', 1],
    ]);
    const acmeDelayed = JSON.parse(
      tw('list', '--state', 'delayed', '--tenant', 'acme', '--json').stdout,
    ) as { dispatchId: string }[];
    expect(acmeDelayed.map((r) => r.dispatchId)).toEqual([ids[0]]);
    const table = tw('list');
    expect(table.status).toBe(0);
    expect(table.stdout).toMatch(/^DISPATCH\s+STATE\s+TENANT\s+TRIGGER\s+DUE\s+PINGS/);
    expect(table.stdout).toContain(ids[2]);
    expect(tw('list', '--state', 'expired').stdout).toBe('no dispatches expired\n');
  });

  it('inspects one with its plan and envelope', () => {
    const text = tw('inspect', ids[2]!);
    expect(text.status).toBe(0);
    expect(text.stdout).toMatch(/^dispatch\s+dsp_/);
    expect(text.stdout).toMatch(/debounce\s+key "cus_1", trailing, period 60000 ms \(1 min\)\n/);
    // The plan and the envelope the help promises, not only in --json.
    expect(text.stdout).toMatch(/\nttl\s+600000 ms \(10 min\)\n/);
    expect(text.stdout).toMatch(
      /\nenvelope\s+event evt_4 from custom\/\S+, occurred \S+Z, payload 26 bytes \(--json prints it\)\n/,
    );
    const delayed = tw('inspect', ids[0]!);
    expect(delayed.stdout).toMatch(/\ndelay\s+3600000 ms \(1 h\)\n/);
    const json = JSON.parse(tw('inspect', ids[2]!, '--json').stdout) as Record<string, unknown>;
    expect(json).toMatchObject({
      dispatchId: ids[2],
      state: 'debounced',
      pings: 2,
      dedupeKey: 'evt_4',
      plan: {
        debounce: { key: 'cus_1', period: 60_000, mode: 'trailing', maxWait: null },
        ttl: 600_000,
      },
      envelope: { payload: { customer: 'cus_1', n: 4 } },
      run: null,
    });
  });

  it('cancels one still waiting, idempotently; refuses what it cannot', () => {
    const first = tw('cancel', ids[0]!, '--json');
    expect(first.status).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({
      changed: true,
      dispatch: { dispatchId: ids[0], state: 'cancelled', reason: 'cancelled' },
    });
    expect(tw('cancel', ids[0]!).stdout).toMatch(/was cancelled already/);
    expect(JSON.parse(tw('list', '--state', 'cancelled', '--json').stdout)).toHaveLength(1);
    // `twinworld triggers` says what became of each deferred key, not `deferred` for ever.
    const triggers = spawnSync(process.execPath, [BIN, 'triggers', '--root', root, '--json'], {
      encoding: 'utf8',
    });
    const listed = JSON.parse(triggers.stdout) as {
      dedupeKey: string;
      status: string;
      dispatchId: string | null;
      dispatchState?: string;
    }[];
    expect(listed.find((r) => r.dedupeKey === 'evt_1')).toMatchObject({
      status: 'deferred',
      dispatchId: ids[0],
      dispatchState: 'cancelled',
    });
    expect(listed.find((r) => r.dedupeKey === 'evt_2')).toMatchObject({
      dispatchState: 'delayed',
    });
    const table = spawnSync(process.execPath, [BIN, 'triggers', '--root', root], {
      encoding: 'utf8',
    }).stdout;
    expect(table).toMatch(/deferred\s+dispatch cancelled\s+evt_1\n/);

    const unknown = tw('cancel', `dsp_${'0'.repeat(32)}`, '--json');
    expect(unknown.status).toBe(1);
    expect(JSON.parse(unknown.stderr)).toMatchObject({ error: 'UNKNOWN_DISPATCH', path: 'id' });
  });

  it('refuses bad usage with exit status 2', () => {
    for (const args of [
      ['list', '--state', 'waiting'],
      ['inspect'],
      ['cancel'],
      ['retry', ids[1]!],
      ['list', ids[1]!],
      ['inspect', ids[1]!, '--state', 'delayed'],
      ['list', '--limit', '0'],
    ]) {
      const r = tw(...args);
      expect(r.status, args.join(' ')).toBe(2);
      expect(r.stdout).toBe('');
    }
  });
});
