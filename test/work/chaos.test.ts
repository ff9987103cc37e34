// Chaos with real processes (issue 12): three `twinworld work` processes while a fourth queues
// deliveries through `twinworld trigger`, one worker SIGKILLed and restarted in turn, then
// `work --until-idle`. Every kill lands on a worker that is sending (it has finished deliveries
// since it started) while deliveries are still being queued; queueing goes on in rounds until
// enough kills have landed so. Every delivery ends succeeded, or unknown only where its sender was
// killed mid-request; nothing is left queued, sending or due; no first attempt reached the
// receiver twice; no send by a live worker became unknown; the log replays to the live hash. On
// SQLite and PostgreSQL.
//
// What it costs is process start-ups, not deliveries (a delivery is a few ms of CPU, a restarted
// worker most of a second): so the kills are counted, each one made to count, and the records are
// read back with one command each rather than one per delivery.
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { postgresUrl } from '../storage/postgres-url.js';

const BIN = resolve('dist/src/cli/main.js');
/** Kills that must land on a sending worker while deliveries are being queued, per backend. */
const KILLS = 12;
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** Runs the CLI without blocking this process: the receiver lives here and must keep answering. */
function tw(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

/** Counts requests per Standard Webhooks message id; a few answer slowly. */
async function countingReceiver() {
  const perMessage = new Map<string, number>();
  let n = 0;
  let open = 0;
  const server = http.createServer((req, res) => {
    open++;
    res.on('close', () => open--);
    req.resume();
    req.on('end', () => {
      const id = String(req.headers['webhook-id']);
      perMessage.set(id, (perMessage.get(id) ?? 0) + 1);
      const slow = ++n % 50 === 0;
      setTimeout(
        () => {
          res.writeHead(200);
          res.end('ok');
        },
        slow ? 1_500 : 0,
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    perMessage,
    total: () => n,
    /** Requests received and not yet answered (or dropped by a killed sender). */
    open: () => open,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

interface WorkerProcess {
  readonly child: ChildProcess;
  owner: string | undefined;
  /** Deliveries this process finished: above 0, it is claiming and sending. */
  done: number;
  readonly exited: Promise<NodeJS.Signals | number | null>;
}

function startWorker(store: string[]): WorkerProcess {
  const child = spawn(process.execPath, [BIN, 'work', '--lease', '2', '--json', ...store], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const w: WorkerProcess = {
    child,
    owner: undefined,
    done: 0,
    exited: new Promise((r) => child.on('exit', (code, signal) => r(signal ?? code))),
  };
  let buffered = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    const lines = (buffered + chunk).split('\n');
    buffered = lines.pop()!;
    for (const line of lines) {
      const event = JSON.parse(line) as { event: string; owner?: string };
      if (event.event === 'started') w.owner = event.owner;
      if (event.event === 'done') w.done++;
    }
  });
  child.stderr!.resume();
  return w;
}

async function until(cond: () => boolean, ms: number): Promise<void> {
  for (let waited = 0; !cond() && waited < ms; waited += 20)
    await new Promise((r) => setTimeout(r, 20));
}

/** One `twinworld trigger --count` process queuing a round of deliveries. */
function queueRound(store: string[], eventType: string, count: number) {
  const child = spawn(
    process.execPath,
    [BIN, 'trigger', 'standard-webhooks', eventType, '--count', String(count), '--json', ...store],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  child.stderr!.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  const round = {
    running: true,
    /** Resolves with the number of deliveries it queued; the process must exit 0. */
    queued: new Promise<number>((resolve, reject) =>
      child.on('close', (code) => {
        round.running = false;
        if (code !== 0) reject(new Error(`trigger exited ${code}: ${stderr}`));
        else resolve((JSON.parse(stdout) as { queued: unknown[] }).queued.length);
      }),
    ),
  };
  // Awaited with the others after the kills; a failure is reported there, not as unhandled.
  round.queued.catch(() => {});
  return round;
}

// A round is a few seconds of queueing on either backend (SQLite queues several times faster), so
// that several kills land within each and few extra trigger processes are started.
const backends: { name: string; round: number; store: () => string[] }[] = [
  {
    name: 'SQLite',
    round: 400,
    store: () => {
      const d = mkdtempSync(join(tmpdir(), 'twinworld-chaos-'));
      dirs.push(d);
      return ['--root', join(d, 'world')];
    },
  },
  {
    name: 'PostgreSQL',
    round: 100,
    store: () => {
      const url = new URL(postgresUrl());
      url.searchParams.set('world', `chaos_${process.pid}_${Date.now()}`);
      return ['--store', url.toString()];
    },
  },
];

/**
 * What a failure says when deliveries were left unsettled (seen once on a loaded CI machine, not
 * reproduced in 48 loaded runs since): each record's state, attempts, claim and due time, the time
 * now, the stop line of the `--until-idle` that left them (its `later` lists work it took for
 * scheduled later), and whether one more `--until-idle` settles them. That tells a record no pick
 * could see (an index fault: a second run leaves it too) from one whose due time was ahead of the
 * worker's clock (`later` names it) or one no claim can take (attempts or a current attempt on a
 * queued record).
 */
async function unsettledReport(
  store: string[],
  unsettled: readonly { id: string }[],
  idleStdout: string,
): Promise<string> {
  const ids = new Set(unsettled.map((d) => d.id));
  const read = async () =>
    (
      JSON.parse(
        (await tw(['state', 'standard-webhooks', '--type', 'delivery', '--json', ...store])).stdout,
      ) as { id: string; fields: Record<string, unknown> }[]
    )
      .filter((r) => ids.has(r.id))
      .map(({ id, fields: f }) => ({
        id,
        state: f.state,
        attempts: f.attempts,
        currentAttempt: f.currentAttempt,
        createdAt: f.createdAt,
        dueAt: f.dueAt,
        owner: f.owner,
        leaseUntil: f.leaseUntil,
      }));
  const now = new Date().toISOString();
  const before = await read();
  const again = await tw(['work', '--until-idle', '--lease', '2', '--json', ...store]);
  const after = await read();
  const lastLine = (out: string) => out.trim().split('\n').at(-1);
  return [
    `deliveries left unsettled at ${now}: ${JSON.stringify(before)}`,
    `the --until-idle before: ${lastLine(idleStdout)}`,
    `one more --until-idle (exit ${again.status}): ${lastLine(again.stdout)} ${again.stderr}`,
    `then: ${JSON.stringify(after.map((r) => ({ id: r.id, state: r.state })))}`,
  ].join('\n');
}

describe('chaos: sending workers killed while deliveries are queued', () => {
  for (const backend of backends) {
    it(`on ${backend.name}: nothing lost, nothing sent twice, no live send overwritten`, async () => {
      const store = backend.store();
      const receiver = await countingReceiver();
      const added = await tw([
        'endpoints',
        'add',
        'standard-webhooks',
        '--url',
        receiver.url,
        '--json',
        ...store,
      ]);
      expect(added.status, added.stderr).toBe(0);
      const types = JSON.parse(
        (await tw(['trigger', '--list', 'standard-webhooks', '--json'])).stdout,
      ) as {
        eventType?: string;
        type?: string;
      }[];
      const eventType = types[0]!.eventType ?? types[0]!.type!;

      const workers = [startWorker(store), startWorker(store), startWorker(store)];
      const killed = new Set<string>();
      let kills = 0;
      let killsWithRequestOpen = 0;
      const rounds: Promise<number>[] = [];
      let round = queueRound(store, eventType, backend.round);
      rounds.push(round.queued);

      // Workers are killed in turn, each once it is sending, while a round of deliveries is being
      // queued; a new round starts whenever one ends, until enough kills have landed so.
      const started = Date.now();
      let turn = 0;
      while (kills < KILLS && Date.now() - started < 300_000) {
        if (!round.running) {
          round = queueRound(store, eventType, backend.round);
          rounds.push(round.queued);
        }
        const i = turn % workers.length;
        const victim = workers[i]!;
        await until(() => victim.done > 0 || !round.running, 30_000);
        // The round ended first: the deliveries may all be out; queue more before killing.
        if (!round.running || victim.done === 0) continue;
        killed.add(victim.owner!);
        if (receiver.open() > 0) killsWithRequestOpen++;
        victim.child.kill('SIGKILL');
        await victim.exited;
        kills++;
        turn++;
        workers[i] = startWorker(store);
        // The others get on with the work between kills.
        await new Promise((r) => setTimeout(r, 250));
      }
      expect(kills).toBe(KILLS);
      const total = (await Promise.all(rounds)).reduce((a, b) => a + b, 0);
      // The survivors stop gracefully once running: they finish what they hold and exit 0.
      await until(() => workers.every((w) => w.owner !== undefined), 20_000);
      for (const w of workers) w.child.kill('SIGTERM');
      for (const w of workers) expect(await w.exited).toBe(0);

      // Whatever the kills left is settled by one more worker, once the dead leases lapse.
      const idle = await tw(['work', '--until-idle', '--lease', '2', '--json', ...store]);
      expect(idle.status, idle.stderr).toBe(0);

      const deliveries = JSON.parse((await tw(['deliveries', '--json', ...store])).stdout) as {
        id: string;
        state: string;
        attempts: number;
      }[];
      expect(deliveries).toHaveLength(total);
      const byState = new Map<string, number>();
      for (const d of deliveries) byState.set(d.state, (byState.get(d.state) ?? 0) + 1);
      // nothing queued, sending or waiting for a retry
      const unsettled = deliveries.filter((d) => d.state !== 'succeeded' && d.state !== 'unknown');
      if (unsettled.length > 0) expect.fail(await unsettledReport(store, unsettled, idle.stdout));
      const unknown = deliveries.filter((d) => d.state === 'unknown');
      // unknown only where the sender was a killed worker, finished by a takeover of its lease:
      // every attempt, read in one command, grouped by its delivery (attempt ids are <delivery>.<n>)
      const listed = await tw([
        'state',
        'standard-webhooks',
        '--type',
        'delivery_attempt',
        '--json',
        ...store,
      ]);
      expect(listed.status, listed.stderr).toBe(0);
      const attemptsOf = new Map<string, { owner?: string; reason: string; number: number }[]>();
      for (const a of JSON.parse(listed.stdout) as {
        id: string;
        fields: { owner?: string; reason: string; number: number };
      }[]) {
        const delivery = a.id.slice(0, a.id.lastIndexOf('.'));
        attemptsOf.set(delivery, [...(attemptsOf.get(delivery) ?? []), a.fields]);
      }
      for (const d of unknown) {
        const attempts = attemptsOf.get(d.id) ?? [];
        expect(d.attempts).toBe(1);
        expect(attempts).toHaveLength(1);
        expect(attempts[0]!.reason).toBe('lease_expired');
        expect(killed.has(String(attempts[0]!.owner))).toBe(true);
      }
      // no message reached the receiver twice; every succeeded one reached it
      const doubles = [...receiver.perMessage.values()].filter((n) => n > 1).length;
      expect(doubles).toBe(0);
      expect(receiver.perMessage.size).toBeGreaterThanOrEqual(byState.get('succeeded') ?? 0);

      // replay equals live
      const dir = mkdtempSync(join(tmpdir(), 'twinworld-chaos-export-'));
      dirs.push(dir);
      const file = join(dir, 'log.jsonl');
      const exported = await tw(['export', 'standard-webhooks', '--out', file, ...store]);
      expect(exported.status, exported.stderr).toBe(0);
      const live = (await tw(['hash', 'standard-webhooks', ...store])).stdout.trim();
      const replayed = await tw(['replay', file, '--expect', live.split(/\s+/).at(-1)!]);
      expect(replayed.status, replayed.stderr).toBe(0);
      console.log(
        `chaos ${backend.name}: deliveries ${total} in ${rounds.length} rounds, kills ${kills} (${killsWithRequestOpen} with a request open), unknown ${unknown.length}, double sends ${doubles}, requests ${receiver.total()}`,
      );
      await receiver.close();
    }, 600_000);
  }
});
