// `twinworld demo` end to end: the built CLI runs the demo walk (ingress host on 127.0.0.1, three
// vendors, a retry, a New York calendar) and its JSON report says what happened; the same seed
// gives the same hashes; the human report shows deliveries, decisions, traces and hashes.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runDemoWalk } from '../../src/cli/demo-walk.js';
import type { WalkReport } from '../../src/walk/index.js';

const BIN = resolve('dist/src/cli/main.js');
const dirs: string[] = [];

function demo(args: string[]) {
  const started = performance.now();
  const r = spawnSync(process.execPath, [BIN, 'demo', ...args], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr, ms: performance.now() - started };
}

afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('twinworld demo', () => {
  it('runs the whole loop in a few seconds and reports it as JSON; the same seed gives the same hashes', () => {
    const first = demo(['--json', '--seed', '7']);
    expect(first.stderr).toBe('');
    expect(first.status).toBe(0);
    expect(first.ms).toBeLessThan(10_000);
    const report = JSON.parse(first.stdout) as WalkReport & {
      ingress: string;
      root: string | null;
    };
    expect(report.seed).toBe('7');
    expect(report.ingress).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(report.root).toBeNull();

    // Every delivery succeeded in the end, Stripe, GitHub and Slack alike; one needed a retry.
    expect(new Set(report.deliveries.map((d) => d.pack))).toEqual(
      new Set(['stripe', 'github', 'slack']),
    );
    expect(report.deliveries.every((d) => d.state === 'succeeded')).toBe(true);
    const retried = report.deliveries.filter((d) => d.attempts.some((a) => a.kind === 'retry'));
    expect(retried).toHaveLength(1);
    expect(retried[0]).toMatchObject({ receiver: 'ledger', eventType: 'payment_intent.succeeded' });
    expect(retried[0]!.attempts.map((a) => a.status)).toEqual([503, 200]);
    expect(report.receivers).toEqual([
      expect.objectContaining({ name: 'ledger', requests: 2, accepted: 1 }),
    ]);

    // The ingress verified and routed every packet it got: one decision per delivery to it.
    const toIngress = report.deliveries.filter((d) => d.receiver === null);
    const webhookDecisions = report.triggers.decisions.filter((d) =>
      d.source.startsWith('webhook/'),
    );
    expect(webhookDecisions).toHaveLength(toIngress.length);
    expect(webhookDecisions.every((d) => d.status === 'triggered' || d.status === 'filtered')).toBe(
      true,
    );
    const triggered = report.triggers.decisions.filter((d) => d.status === 'triggered');
    expect(new Set(triggered.map((d) => d.triggerId))).toEqual(
      new Set(['stripe-events', 'github-issues', 'slack-events', 'standup']),
    );
    expect(
      triggered.find((d) => d.eventType === 'payment_intent.payment_failed')?.result,
    ).toMatchObject({ action: 'send dunning email' });
    expect(
      report.triggers.decisions.some((d) => d.status === 'filtered' && d.eventType === 'message'),
    ).toBe(true);

    // The calendar fired as the clock passed 09:30 in New York (14:30 UTC).
    expect(report.triggers.occurrences).toEqual([
      expect.objectContaining({
        triggerId: 'standup',
        timezone: 'America/New_York',
        wallTime: expect.stringContaining('09:30'),
        nominalAt: '2026-03-02T14:30:00.000Z',
        state: 'fired',
        answer: 'triggered',
      }),
    ]);
    expect(triggered.find((d) => d.source === 'calendar/cron')).toMatchObject({
      triggerId: 'standup',
      routineId: 'standup',
    });

    // One trace: the walk's writes ran under a traceparent, and every attempt continued it.
    const traced = report.deliveries.filter((d) => d.traceId !== null);
    expect(new Set(traced.map((d) => d.traceId)).size).toBe(1);
    expect(traced.length).toBeGreaterThanOrEqual(9);
    for (const d of traced)
      for (const a of d.attempts) expect(a.traceparent?.split('-')[1]).toBe(d.traceId);

    expect(Object.keys(report.hashes).sort()).toEqual(['github', 'slack', 'stripe', 'triggers']);
    for (const h of Object.values(report.hashes)) expect(h).toMatch(/^sha256:[0-9a-f]{64}$/);

    const second = JSON.parse(demo(['--json', '--seed', '7']).stdout) as WalkReport & {
      ingress: string;
    };
    expect(second.hashes).toEqual(report.hashes);
    expect(second.ingress).not.toBe(report.ingress);
    const { wall: _w1, ingress: _i1, ...a } = report;
    const { wall: _w2, ingress: _i2, ...b } = second;
    expect(b).toEqual(a);
    const other = JSON.parse(demo(['--json', '--seed', '8']).stdout) as WalkReport;
    expect(other.hashes.stripe).not.toBe(report.hashes.stripe);
  });

  it('prints a human report and keeps the world with --root', () => {
    const dir = mkdtempSync(join(tmpdir(), 'twinworld-demo-'));
    dirs.push(dir);
    const root = join(dir, 'world');
    const r = demo(['--root', root]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toContain(
      'twinworld demo — seed 1, virtual clock 2026-03-02 14:00:00.000 → 2026-03-02 15:00:00.000 UTC',
    );
    expect(r.stdout).toMatch(/Ingress host: http:\/\/127\.0\.0\.1:\d+/);
    expect(r.stdout).toMatch(
      /stripe payment_intent\.succeeded evt_\w+ → receiver ledger: succeeded after 2 attempts/,
    );
    expect(r.stdout).toMatch(/#2 retry\s+2026-03-02 14:1\d:\d\d\.\d{3}\s+succeeded 200/);
    expect(r.stdout).toMatch(
      /github issues\.opened [0-9a-f-]{36} → ingress \/ingress\/demo\/github: succeeded/,
    );
    expect(r.stdout).toMatch(/webhook\/slack slack-events app_mention .*: triggered → chatops/);
    expect(r.stdout).toMatch(
      /standup #1 2026-03-02T09:30\S* America\/New_York \(UTC-05:00\) = 2026-03-02T14:30:00\.000Z: fired, triggered/,
    );
    expect(r.stdout).toMatch(/trace [0-9a-f]{32} \(hops [0-9a-f]{16}/);
    expect(r.stdout).toMatch(/triggers\s+sha256:[0-9a-f]{64}/);
    expect(r.stdout).toContain(`World kept at ${root}`);
    const deliveries = spawnSync(process.execPath, [BIN, 'deliveries', '--root', root, '--json'], {
      encoding: 'utf8',
    });
    // The walk's writes (the Stripe confirmations also send charge.failed and charge.succeeded), plus the ping GitHub sends when the demo's repository hook is created.
    expect(JSON.parse(deliveries.stdout)).toHaveLength(13);
    const refused = demo(['--root', root]);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain('is not empty');
  });

  it('no secret of any endpoint reaches the log', async () => {
    const { walk } = await runDemoWalk({ seed: 'secrets' });
    const log = (await walk.exportLog()).join('\n');
    const refs = [...log.matchAll(/"secret_?[rR]ef":"([^"]+)"/g)].map((m) => m[1]!);
    expect(new Set(refs).size).toBeGreaterThanOrEqual(4);
    for (const ref of new Set(refs)) {
      const secrets = await walk.world.secrets.resolve(ref, walk.clock.now());
      expect(secrets.length).toBeGreaterThan(0);
      for (const s of secrets) expect(log).not.toContain(s);
    }
    await walk.close();
  });
});
