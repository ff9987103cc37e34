// Deferred dispatch with real processes on one PostgreSQL database: two hosts take signed Stripe
// webhooks over HTTP and each runs a worker (`twinworld serve --store postgres://…` for the burst;
// a host with a routine that takes time for the others). A burst of 20 with one debounce key, spread over both
// hosts, runs the routine once, after the quiet period, with the last payload; SIGKILL of the host
// running a dispatch hands it to the other once the lease lapses; a concurrency limit of 2 over 10
// queued builds never has more than 2 running across the hosts.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Stripe from 'stripe';
import { afterEach, describe, expect, it } from 'vitest';
import type { Entry } from '../../../src/log/write.js';
import { PostgresBackend } from '../../../src/storage/postgres/index.js';
import {
  declareDispatchIndexes,
  readDispatch,
} from '../../../src/triggers/deferred/dispatch-record.js';
import { RECORD_TYPE, type RecordFields } from '../../../src/triggers/trigger-records.js';
import { RECEIVED_TYPE } from '../../../src/triggers/routines/record-routine.js';
import { RealClock } from '../../../src/world/clock.js';
import { openWorld, type World } from '../../../src/world/world.js';
import { postgresUrl } from '../../storage/postgres-url.js';

const SECRET = 'whsec_deferredProcesses000000000000001';
const stripe = new Stripe('sk_test_x');
const WORKER = 'dist/test/support/deferred-host-worker.js';
const BIN = 'dist/src/cli/main.js';

interface Host {
  readonly child: ChildProcess;
  readonly url: string;
  readonly lines: string[];
  readonly exited: Promise<unknown>;
}

let children: ChildProcess[] = [];
let cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  children = [];
  for (const c of cleanups.reverse()) await c();
  cleanups = [];
});

/** A host: `slow` args for the test worker, or a whole command line for the built binary. */
function startHost(args: string[], bin = WORKER): Promise<Host> {
  const child = spawn(process.execPath, [bin, ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, STRIPE_SECRET: SECRET },
  });
  children.push(child);
  const exited = new Promise((resolve) =>
    child.on('exit', (code, signal) => resolve(signal ?? code)),
  );
  const lines: string[] = [];
  return new Promise((resolve, reject) => {
    let buffered = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      const parts = (buffered + chunk).split('\n');
      buffered = parts.pop()!;
      for (const line of parts) {
        lines.push(line);
        if (line.startsWith('{"event":"listening"'))
          resolve({ child, url: (JSON.parse(line) as { url: string }).url, lines, exited });
      }
    });
    child.on('exit', (code) => reject(new Error(`host exited ${String(code)} before listening`)));
  });
}

function post(url: string, id: string, object: Record<string, unknown>) {
  const body = JSON.stringify({
    id,
    object: 'event',
    type: 'customer.updated',
    created: Math.floor(Date.now() / 1000),
    data: { object },
  });
  const headers = {
    'stripe-signature': stripe.webhooks.generateTestHeaderString({ payload: body, secret: SECRET }),
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(body)),
  };
  return new Promise<{
    status: number;
    location: string | undefined;
    body: Record<string, unknown>;
  }>((resolve, reject) => {
    const req = http.request(url, { method: 'POST', headers, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (c: string) => (text += c));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          location: res.headers.location,
          body: JSON.parse(text) as Record<string, unknown>,
        }),
      );
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function until<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  ms = 30_000,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function reader(worldName: string): World {
  const world = openWorld({
    root: ':memory:',
    clock: new RealClock(),
    backend: new PostgresBackend(postgresUrl(), worldName),
  });
  declareDispatchIndexes(world.twin('triggers'));
  cleanups.push(() => world.close());
  return world;
}

let worlds = 0;
function worldName(): string {
  return `deferred_${process.pid}_${++worlds}_${Date.now().toString(36)}`;
}

/**
 * The burst's quiet period. The 20 posts go one after another on wall time, so any gap between two
 * of them longer than this ends the burst early, as it should: 1.5 s was split in two on a machine
 * loaded to 30 runnable processes. 5 s leaves a loaded host room and adds its wait once.
 */
const QUIET_MS = 5_000;

describe('deferred dispatch across processes on PostgreSQL', () => {
  it('a burst of 20 signed webhooks with one debounce key, to two serve hosts, runs once with the last payload after the quiet period', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'deferred-serve-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const config = join(dir, 'serve.json');
    writeFileSync(
      config,
      JSON.stringify({
        tenants: [{ id: 'acme', endpoints: [{ provider: 'stripe', secretEnv: 'STRIPE_SECRET' }] }],
        routes: [
          {
            triggerId: 'stripe.webhook',
            dispatch: { debounce: { key: 'payload.body.data.object.id', period: QUIET_MS } },
          },
        ],
      }),
    );
    const name = worldName();
    // `twinworld serve --store postgres://…?world=NAME`: the first migrates and creates the world,
    // the second joins it; each runs its worker beside the ingress.
    const serve = [
      'serve',
      '--config',
      config,
      '--store',
      `${postgresUrl()}?world=${name}`,
      '--json',
    ];
    const a = await startHost(serve, BIN);
    const b = await startHost(serve, BIN);
    const answers = [];
    for (let i = 0; i < 20; i++) {
      const host = i % 2 === 0 ? a : b;
      answers.push(
        await post(`${host.url}/ingress/acme/stripe`, `evt_burst_${i}`, { id: 'cus_burst', n: i }),
      );
    }
    const dispatchId = answers[0]!.body.dispatchId as string;
    expect(answers.map((r) => [r.status, r.body.status, r.body.dispatchId, r.body.pings])).toEqual(
      answers.map((_, i) => [202, 'deferred', dispatchId, i + 1]),
    );
    // One Location from either host: the capability is the world's, not the host's.
    const locations = new Set(answers.map((r) => r.location));
    expect(locations.size).toBe(1);
    const location = [...locations][0]!;
    expect(location).toMatch(new RegExp(`^/dispatches/${dispatchId}\\?key=[A-Za-z0-9_-]{43}$`));

    const world = reader(name);
    const triggers = world.twin('triggers');
    const done = await until('the dispatch to settle', async () => {
      const d = await triggers.read((v) => readDispatch(v, dispatchId));
      return d?.runStatus === 'triggered' ? d : undefined;
    });
    expect(done).toMatchObject({ state: 'dispatched', pings: 20, runAttempt: 1 });
    // Either host's GET answers for it, with the run's answer.
    for (const host of [a, b]) {
      const got = await new Promise<Record<string, unknown>>((resolve, reject) =>
        http
          .get(`${host.url}${location}`, (res) => {
            let text = '';
            res.setEncoding('utf8').on('data', (c: string) => (text += c));
            res.on('end', () => resolve(JSON.parse(text) as Record<string, unknown>));
          })
          .on('error', reject),
      );
      expect(got).toMatchObject({ state: 'dispatched', run: { status: 'triggered' } });
    }
    // One run, with the last payload, after the last ping's quiet period.
    const entries: Entry[] = await triggers.entries();
    expect(entries.filter((e) => e.operation === 'trigger.start')).toHaveLength(1);
    const received = await triggers.list(RECEIVED_TYPE);
    expect(received).toHaveLength(1);
    expect(received[0]!.fields.input).toMatchObject({
      body: { id: 'evt_burst_19', data: { object: { n: 19 } } },
    });
    const run = (await triggers.get(RECORD_TYPE, done.runRecordId!))!
      .fields as unknown as RecordFields;
    expect(Date.parse(run.startedAt!) - Date.parse(done.lastPingAt)).toBeGreaterThanOrEqual(
      QUIET_MS,
    );
    // And `twinworld dispatches` reads it from the same database.
    const listed = spawnSync(
      process.execPath,
      [BIN, 'dispatches', 'list', '--store', `${postgresUrl()}?world=${name}`, '--json'],
      { encoding: 'utf8' },
    );
    expect(listed.status).toBe(0);
    expect(JSON.parse(listed.stdout)).toMatchObject([
      { dispatchId, state: 'dispatched', pings: 20, run: { status: 'triggered' } },
    ]);
    a.child.kill('SIGTERM');
    b.child.kill('SIGTERM');
    expect(await a.exited).toBe(0);
    expect(await b.exited).toBe(0);
  }, 90_000);

  it('SIGKILL of the host running a due dispatch: the other runs it after the lease', async () => {
    const name = worldName();
    const a = await startHost(['slow', postgresUrl(), name, 'a', '1500']);
    const b = await startHost(['slow', postgresUrl(), name, 'b', '1500']);
    const hosts = { a, b };
    const answer = await post(`${a.url}/ingress/acme/jobs`, 'evt_job_1', { n: 1, hold: 'first' });
    expect(answer).toMatchObject({ status: 202, body: { state: 'delayed' } });
    const dispatchId = answer.body.dispatchId as string;
    const firstRun = await until('a host to start the run', async () =>
      [...a.lines, ...b.lines].find((l) => l.startsWith('run 1 1 ')),
    );
    const holder = firstRun.split(' ')[3] as 'a' | 'b';
    const other = holder === 'a' ? 'b' : 'a';
    hosts[holder].child.kill('SIGKILL');
    expect(await hosts[holder].exited).toBe('SIGKILL');
    const secondRun = await until(
      'the other host to take the run over',
      async () => hosts[other].lines.find((l) => l.startsWith('run 1 2 ')),
      20_000,
    );
    expect(secondRun).toBe(`run 1 2 ${other}`);

    const world = reader(name);
    const settled = await until('the dispatch to settle', async () => {
      const d = await world.twin('triggers').read((v) => readDispatch(v, dispatchId));
      return d?.runStatus === 'triggered' ? d : undefined;
    });
    expect(settled).toMatchObject({ state: 'dispatched', runAttempt: 2, running: false });
    const side = (await world.twin('side').entries()).map((e) => [
      e.operation,
      e.subjectId,
      e.fields?.by,
    ]);
    expect(side).toEqual([
      ['run.start', '1.1', holder],
      ['run.start', '1.2', other],
      ['run.end', '1.2', other],
    ]);
  }, 90_000);

  it('a concurrency limit of 2 over 10 queued builds never has more than 2 running across hosts', async () => {
    const name = worldName();
    const a = await startHost(['slow', postgresUrl(), name, 'a', '5000']);
    const b = await startHost(['slow', postgresUrl(), name, 'b', '5000']);
    for (let n = 0; n < 10; n++) {
      const reply = await post(
        `${(n % 2 === 0 ? a : b).url}/ingress/acme/builds`,
        `evt_build_${n}`,
        {
          n,
          repo: 'octo/engine',
          hold: 150,
        },
      );
      expect(reply.status).toBe(202);
    }
    const world = reader(name);
    const side = world.twin('side');
    const entries = await until('all 10 builds to finish', async () => {
      const all = await side.entries();
      return all.filter((e) => e.operation === 'run.end').length === 10 ? all : undefined;
    });
    // The store orders every host's marks: replaying them counts what ran at once.
    let running = 0;
    let most = 0;
    for (const e of entries) {
      running += e.operation === 'run.start' ? 1 : -1;
      most = Math.max(most, running);
    }
    expect(most).toBeLessThanOrEqual(2);
    expect(
      entries
        .filter((e) => e.operation === 'run.start')
        .map((e) => e.fields?.n)
        .sort((x, y) => Number(x) - Number(y)),
    ).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    a.child.kill('SIGTERM');
    b.child.kill('SIGTERM');
    expect(await a.exited).toBe(0);
    expect(await b.exited).toBe(0);
  }, 90_000);
});
