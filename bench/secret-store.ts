// secret-store: why the root's secrets are a SQLite file. Sets per second with 6 processes
// writing at once to one root (each a fresh ref), and with one process into a store already
// holding 5k refs, for the SQLite store (IMMEDIATE transactions) and for the alternative it was
// chosen over: one JSON file rewritten under a lock file (bench/secret-lock-file.ts). Both keep
// every set; the figures are what each costs.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SqliteSecretStore } from '../src/storage/sqlite/sqlite-secret-store.js';
import { LockFileSecretStore } from './secret-lock-file.js';
import {
  compared,
  count,
  figure,
  medianOf,
  method,
  nowNs,
  removeTemp,
  sinceNs,
  tempDir,
  type Benchmark,
} from './measure.js';

const PROCESSES = 6;
const PER_PROCESS = 200;
const PREFILL = 5_000;
const SINGLE = 300;
const ROUNDS = 3;

type Kind = 'sqlite' | 'lockfile';

function open(kind: Kind, root: string): SqliteSecretStore | LockFileSecretStore {
  return kind === 'sqlite' ? new SqliteSecretStore(root) : new LockFileSecretStore(root);
}

function writer(root: string, kind: Kind, label: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['dist/bench/secret-writer.js', root, kind, label, String(PER_PROCESS)],
      { stdio: ['ignore', 'ignore', 'inherit'] },
    );
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`secret writer exited ${code}`)),
    );
  });
}

async function concurrent(kind: Kind): Promise<number> {
  const root = tempDir(`secrets-${kind}`);
  try {
    const labels = Array.from({ length: PROCESSES }, (_, i) => `p${i}`);
    const start = nowNs();
    await Promise.all(labels.map((l) => writer(root, kind, l)));
    const ns = sinceNs(start);
    const store = open(kind, root);
    for (const l of labels)
      for (let i = 0; i < PER_PROCESS; i++)
        if (store.resolve(`${l}/${i}`, 0)[0] !== `secret-${l}-${i}`)
          throw new Error(`${kind}: lost ${l}/${i}`);
    if (store instanceof SqliteSecretStore) store.close();
    return (PROCESSES * PER_PROCESS) / (ns / 1e9);
  } finally {
    removeTemp(root);
  }
}

function prefilled(kind: Kind): number {
  const root = tempDir(`secrets-big-${kind}`);
  try {
    const store = open(kind, root);
    if (store instanceof SqliteSecretStore)
      for (let i = 0; i < PREFILL; i++) store.set(`old/${i}`, `secret-${i}`);
    // The JSON file is filled in one write: ${PREFILL} rewrites would time the filling, not the figure.
    else
      writeFileSync(
        join(root, 'secrets.json'),
        JSON.stringify(
          Object.fromEntries(
            Array.from({ length: PREFILL }, (_, i) => [`old/${i}`, [{ secret: `secret-${i}` }]]),
          ),
        ),
      );
    const start = nowNs();
    for (let i = 0; i < SINGLE; i++) store.set(`new/${i}`, `secret-${i}`);
    const rate = SINGLE / (sinceNs(start) / 1e9);
    if (store instanceof SqliteSecretStore) store.close();
    return rate;
  } finally {
    removeTemp(root);
  }
}

export const bench: Benchmark = {
  name: 'secret-store',
  async run() {
    method(
      `concurrent: ${PROCESSES} child processes each set ${PER_PROCESS} fresh refs on one root at once; sets/s over the wall time until all exit; every set checked afterwards. ` +
        `prefilled: one process sets ${SINGLE} refs into a store already holding ${count(PREFILL)} refs. sqlite = SqliteSecretStore (IMMEDIATE transaction per set, WAL); ` +
        `lockfile = JSON file rewritten under an O_EXCL lock file (bench/secret-lock-file.ts). Median of ${ROUNDS} rounds.`,
    );
    const sqliteConcurrent = await medianOf(ROUNDS, () => concurrent('sqlite'));
    const lockConcurrent = await medianOf(ROUNDS, () => concurrent('lockfile'));
    figure('secret-store concurrent lockfile', lockConcurrent, 'sets/s');
    compared(
      'secret-store concurrent sqlite',
      sqliteConcurrent,
      'sets/s',
      sqliteConcurrent / lockConcurrent,
      'vs lockfile',
      { op: '>=', target: 1 },
    );
    const sqliteBig = await medianOf(ROUNDS, () => prefilled('sqlite'));
    const lockBig = await medianOf(ROUNDS, () => prefilled('lockfile'));
    figure(`secret-store prefilled ${count(PREFILL)} lockfile`, lockBig, 'sets/s');
    compared(
      `secret-store prefilled ${count(PREFILL)} sqlite`,
      sqliteBig,
      'sets/s',
      sqliteBig / lockBig,
      'vs lockfile',
      { op: '>=', target: 1 },
    );
  },
};
