// `twinworld schedules` through the built binary: declaring (with a seconds field, the policies in
// text form, the revision fence), listing, pausing, inspecting, backfilling, history and pruning,
// and each refusal's code and exit status.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { cli } from '../../cli/in-process.js';

const BIN = resolve('dist/src/cli/main.js');
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function tw(
  root: string,
  args: string[],
): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [BIN, 'schedules', ...args, '--root', root], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

function json<T = Record<string, unknown>>(run: {
  status: number | null;
  stdout: string;
  stderr: string;
}): T {
  expect(run.stderr).toBe('');
  expect(run.status).toBe(0);
  return JSON.parse(run.stdout) as T;
}

function refusal(run: { status: number | null; stderr: string }): {
  error: string;
  path?: string;
  message: string;
} {
  expect(run.status).toBe(1);
  return JSON.parse(run.stderr) as { error: string; path?: string; message: string };
}

/** A malformed flag value: exit 2, one JSON line naming the flag. */
function usageError(run: { status: number | null; stderr: string }, flag: string): void {
  expect(run.status).toBe(2);
  const body = JSON.parse(run.stderr) as { error: string; message: string };
  expect(body.error).toBe('USAGE');
  expect(body.message).toContain(`--${flag}`);
}

function root(): string {
  const d = mkdtempSync(join(tmpdir(), 'twinworld-schedules-cli-'));
  dirs.push(d);
  return join(d, 'world');
}

describe('twinworld schedules', () => {
  it('adds, lists, pauses, resumes and inspects a schedule, fenced by its revision', () => {
    const r = root();
    const added = json(
      tw(r, [
        'add',
        'tick',
        '--cron',
        '*/10 * * * * *',
        '--tz',
        'Europe/Paris',
        '--routine',
        'wait',
        '--input',
        '{"ms":2500}',
        '--overlap',
        'buffer:2:newest',
        '--catch-up',
        'all:3',
        '--json',
      ]),
    );
    expect(added).toMatchObject({
      scheduleId: 'tick',
      tenantId: 'default',
      revision: 1,
      routine: 'wait',
      input: { ms: 2500 },
      overlap: { kind: 'buffer', size: 2, keep: 'newest' },
      catchUp: { kind: 'all', max: 3 },
    });
    const again = refusal(tw(r, ['add', 'tick', '--cron', '* * * * *', '--json']));
    // Said as the flag that changes it, not as the kernel's "made as a new schedule".
    expect(again).toMatchObject({
      error: 'REVISION_MISMATCH',
      path: 'revision',
      message:
        'schedule "tick" exists already (revision 1); to change it, add it again with --revision 1',
    });
    const changed = json(
      tw(r, ['add', 'tick', '--cron', '0 3 * * *', '--revision', '1', '--json']),
    );
    expect(changed).toMatchObject({ revision: 2, cron: '0 3 * * *', routine: 'record' });
    const stale = refusal(tw(r, ['pause', 'tick', '--revision', '1', '--json']));
    expect(stale.error).toBe('REVISION_MISMATCH');
    expect(stale.message).toMatch(/revision 2.*revision 1/);
    expect(json(tw(r, ['pause', 'tick', '--revision', '2', '--json']))).toMatchObject({
      enabled: false,
      revision: 3,
    });
    expect(tw(r, ['list']).stdout).toMatch(
      /tick\s+0 3 \* \* \*\s+UTC\s+record\s+skip\s+paused\s+3/,
    );
    expect(json(tw(r, ['resume', 'tick', '--json']))).toMatchObject({ enabled: true, revision: 4 });
    const seen = json<{ schedule: { scheduleId: string }; next: unknown[]; active: unknown[] }>(
      tw(r, ['inspect', 'tick', '--next', '2', '--json']),
    );
    expect(seen.schedule.scheduleId).toBe('tick');
    expect(seen.next).toHaveLength(2);
    expect(seen.active).toEqual([]);
    expect(tw(r, ['inspect', 'tick']).stdout).toContain('hosts     none alive');
    expect(json(tw(r, ['list', '--tenant', 'globex', '--json']))).toEqual({
      items: [],
      undecodable: [],
    });
  });

  it('list --enabled lists only the schedules that will fire (listEnabledSchedules)', async () => {
    // In process: the same command table, without a process per call.
    const r = root();
    const sched = async (args: string[]) => {
      const run = await cli(['schedules', ...args, '--root', r]);
      expect(run.stderr).toBe('');
      expect(run.status).toBe(0);
      return run.stdout;
    };
    await sched(['add', 'nightly', '--cron', '0 3 * * *']);
    await sched(['add', 'hourly', '--cron', '0 * * * *', '--paused']);
    await sched(['add', 'weekly', '--cron', '0 3 * * 1']);
    const enabled = JSON.parse(await sched(['list', '--enabled', '--json'])) as {
      items: { scheduleId: string; enabled: boolean }[];
      undecodable: [];
    };
    expect(enabled.items.map((s) => [s.scheduleId, s.enabled])).toEqual([
      ['nightly', true],
      ['weekly', true],
    ]);
    expect(enabled.undecodable).toEqual([]);
    expect(JSON.parse(await sched(['list', '--json'])).items).toHaveLength(3);
    expect(await sched(['list', '--enabled'])).not.toContain('hourly');
    await sched(['pause', 'nightly']);
    await sched(['pause', 'weekly']);
    expect(await sched(['list', '--enabled'])).toBe('no enabled schedules for tenant "default"\n');
  });

  it('a bad cron, zone or policy is a usage error (2); an unknown schedule is refused (1)', () => {
    const r = root();
    usageError(tw(r, ['add', 'x', '--cron', '99 * * * *', '--json']), 'cron');
    usageError(tw(r, ['add', 'x', '--cron', '* * * * *', '--tz', 'Nowhere/Land', '--json']), 'tz');
    usageError(
      tw(r, ['add', 'x', '--cron', '* * * * *', '--overlap', 'buffer:0', '--json']),
      'overlap',
    );
    usageError(
      tw(r, ['add', 'x', '--cron', '* * * * *', '--catch-up', 'most', '--json']),
      'catch-up',
    );
    // `wait` without {"ms": N} would fail at every occurrence: refused at add, naming --input.
    for (const input of [[], ['--input', '{"ms":-5}'], ['--input', '"abc"']]) {
      const wait = refusal(
        tw(r, ['add', 'w', '--cron', '* * * * *', '--routine', 'wait', ...input, '--json']),
      );
      expect(wait).toMatchObject({ error: 'INVALID_ARGUMENT', path: 'input' });
      expect(wait.message).toContain(`--input '{"ms": 2500}'`);
    }
    expect(
      refusal(tw(r, ['add', 'w', '--cron', '* * * * *', '--routine', 'fly', '--json'])),
    ).toMatchObject({ error: 'UNKNOWN_ROUTINE', path: 'routine' });
    // Refused flags open nothing, so the root is still no world; once it is, the name is checked.
    expect(refusal(tw(r, ['pause', 'nope', '--json']))).toMatchObject({ error: 'ROOT_NOT_FOUND' });
    json(tw(r, ['add', 'real', '--cron', '* * * * *', '--json']));
    expect(refusal(tw(r, ['pause', 'nope', '--json']))).toMatchObject({ error: 'UNKNOWN_TRIGGER' });
    // inspect shows at most 100 upcoming occurrences: more is the flag's mistake, not a refusal.
    usageError(tw(r, ['inspect', 'real', '--next', '101', '--json']), 'next');
    const usage = tw(r, ['add', 'x', '--json']);
    expect(usage.status).toBe(2);
    expect(tw(r, ['fly', '--json']).status).toBe(2);
    expect(tw(r, ['add', 'x', '--cron', '* * * * *', '--input', '{oops', '--json']).status).toBe(2);
  });

  it('backfills past occurrences once, pages the history, refuses a bad limit or cursor, and prunes', () => {
    const r = root();
    json(tw(r, ['add', 'daily', '--cron', '0 3 * * *', '--overlap', 'fire', '--json']));
    const from = new Date(Date.now() - 5 * 86_400_000).toISOString().slice(0, 10);
    const to = new Date(Date.now() - 86_400_000).toISOString();
    const first = json(tw(r, ['backfill', 'daily', '--from', from, '--to', to, '--json']));
    expect(first).toMatchObject({
      claimed: first.occurrences,
      alreadyClaimed: 0,
      launched: first.occurrences,
    });
    expect(first.occurrences).toBeGreaterThanOrEqual(4);
    const second = json(tw(r, ['backfill', 'daily', '--from', from, '--to', to, '--json']));
    expect(second).toMatchObject({ claimed: 0, alreadyClaimed: first.occurrences });
    const page = json<{ items: { nominalAt: string; origin: string }[]; nextCursor: string }>(
      tw(r, ['history', 'daily', '--limit', '2', '--json']),
    );
    expect(page.items).toHaveLength(2);
    expect(page.items[0]!.nominalAt > page.items[1]!.nominalAt).toBe(true);
    expect(page.items.every((i) => i.origin === 'backfill')).toBe(true);
    const rest = json<{ items: unknown[] }>(
      tw(r, ['history', 'daily', '--cursor', page.nextCursor, '--json']),
    );
    expect(rest.items).toHaveLength((first.occurrences as number) - 2);
    expect(tw(r, ['history', 'daily']).stdout).toContain('(ready)');
    usageError(tw(r, ['history', 'daily', '--limit', '0', '--json']), 'limit');
    usageError(tw(r, ['history', 'daily', '--limit', 'lots', '--json']), 'limit');
    usageError(tw(r, ['history', 'daily', '--cursor', 'nope', '--json']), 'cursor');
    usageError(tw(r, ['history', 'daily', '--outcome', 'meh', '--json']), 'outcome');
    expect(
      refusal(tw(r, ['backfill', 'daily', '--from', from, '--to', '2999-01-01', '--json'])),
    ).toMatchObject({ error: 'INVALID_OPTIONS', path: 'to' });
    usageError(tw(r, ['prune', '--before', 'soon', '--json']), 'before');
    // Nothing is settled yet (the backfilled occurrences wait for a worker): nothing to prune.
    expect(json(tw(r, ['prune', '--before', '2999-01-01', '--json']))).toEqual({
      removed: 0,
      kept: 0,
    });
  });

  it('serve runs the schedules beside its ingress, as work does', async () => {
    const r = root();
    json(tw(r, ['add', 'tick', '--cron', '* * * * * *', '--input', '{"n":1}', '--json']));
    const child = spawn(
      process.execPath,
      [BIN, 'serve', '--port', '0', '--endpoint', 'stripe=SCHED_TEST_SECRET', '--root', r],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
        env: { ...process.env, SCHED_TEST_SECRET: 'whsec_x' },
      },
    );
    const exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      await vi.waitFor(
        () => {
          const page = json<{ items: { outcome: string; result: unknown }[] }>(
            tw(r, ['history', 'tick', '--outcome', 'completed', '--json']),
          );
          expect(page.items.length).toBeGreaterThanOrEqual(2);
          expect(page.items[0]!.result).toMatchObject({ recorded: expect.any(String) });
        },
        { timeout: 20_000, interval: 300 },
      );
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
    const seen = json<{ hosts: unknown[]; lastHeartbeat: { label: string } }>(
      tw(r, ['inspect', 'tick', '--json']),
    );
    expect(seen.lastHeartbeat.label).toMatch(/:\d+$/);
  });
});
