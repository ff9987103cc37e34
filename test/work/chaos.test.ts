// Chaos with real processes (issue 12): three `twinworld work` processes, a fourth queuing 2,000
// deliveries through `twinworld trigger`, one worker SIGKILLed and restarted every second, then
// `work --until-idle`. Every delivery ends succeeded, or unknown only where its sender was killed
// mid-request; nothing is left queued, sending or due; no first attempt reached the receiver
// twice; no send by a live worker became unknown; the log replays to the live hash. On SQLite and
// PostgreSQL.
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { postgresUrl } from '../storage/postgres-url.js';

const BIN = resolve('dist/src/cli/main.js');
const TOTAL = 2_000;
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
  const server = http.createServer((req, res) => {
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
  readonly exited: Promise<NodeJS.Signals | number | null>;
}

function startWorker(store: string[]): WorkerProcess {
  const child = spawn(process.execPath, [BIN, 'work', '--lease', '2', '--json', ...store], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const w: WorkerProcess = {
    child,
    owner: undefined,
    exited: new Promise((r) => child.on('exit', (code, signal) => r(signal ?? code))),
  };
  let buffered = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    const lines = (buffered + chunk).split('\n');
    buffered = lines.pop()!;
    for (const line of lines) {
      const event = JSON.parse(line) as { event: string; owner?: string };
      if (event.event === 'started') w.owner = event.owner;
    }
  });
  child.stderr!.resume();
  return w;
}

async function until(cond: () => boolean, ms: number): Promise<void> {
  for (let waited = 0; !cond() && waited < ms; waited += 20)
    await new Promise((r) => setTimeout(r, 20));
}

const backends: { name: string; store: () => string[] }[] = [
  {
    name: 'SQLite',
    store: () => {
      const d = mkdtempSync(join(tmpdir(), 'twinworld-chaos-'));
      dirs.push(d);
      return ['--root', join(d, 'world')];
    },
  },
  {
    name: 'PostgreSQL',
    store: () => {
      const url = new URL(postgresUrl());
      url.searchParams.set('world', `chaos_${process.pid}_${Date.now()}`);
      return ['--store', url.toString()];
    },
  },
];

describe('chaos: workers killed while 2,000 deliveries go out', () => {
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
      const queuing = spawn(
        process.execPath,
        [
          BIN,
          'trigger',
          'standard-webhooks',
          eventType,
          '--count',
          String(TOTAL),
          '--json',
          ...store,
        ],
        { stdio: ['ignore', 'ignore', 'pipe'] },
      );
      let queueErr = '';
      queuing.stderr!.setEncoding('utf8').on('data', (c: string) => (queueErr += c));
      const queued = new Promise<number | null>((r) => queuing.on('exit', (code) => r(code)));
      let queueDone = false;
      void queued.then(() => (queueDone = true));

      // Every second, one worker is SIGKILLed and a fresh one started in its place.
      const started = Date.now();
      // Kills go on while the deliveries are queued, and a few times after (at least six in all).
      while ((!queueDone || kills < 6) && Date.now() - started < 120_000) {
        await new Promise((r) => setTimeout(r, 1_000));
        const i = kills % workers.length;
        const victim = workers[i]!;
        if (victim.owner !== undefined) killed.add(victim.owner);
        victim.child.kill('SIGKILL');
        await victim.exited;
        kills++;
        workers[i] = startWorker(store);
      }
      expect(await queued, queueErr).toBe(0);
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
        messageId?: string;
      }[];
      expect(deliveries).toHaveLength(TOTAL);
      const byState = new Map<string, number>();
      for (const d of deliveries) byState.set(d.state, (byState.get(d.state) ?? 0) + 1);
      // nothing queued, sending or waiting for a retry
      expect([...byState.keys()].filter((s) => s !== 'succeeded' && s !== 'unknown')).toEqual([]);
      const unknown = deliveries.filter((d) => d.state === 'unknown');
      // unknown only where the sender was a killed worker, finished by a takeover of its lease
      for (const d of unknown) {
        const attempts = JSON.parse((await tw(['attempts', d.id, '--json', ...store])).stdout) as {
          owner?: string;
          reason: string;
          number: number;
        }[];
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
        `chaos ${backend.name}: deliveries ${TOTAL}, kills ${kills}, unknown ${unknown.length}, double sends ${doubles}, requests ${receiver.total()}`,
      );
      await receiver.close();
    }, 240_000);
  }
});
