// Runs every benchmark in turn, or only those named on the command line:
//   node dist/bench/run.js [atomic-write] [write-vs-size] [open-vs-history] [replay] [...]
// A benchmark is any module in this folder that exports `bench: Benchmark`; the kernel's four run
// first, in this order, then the others by file name.
import { readdirSync, readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Benchmark } from './measure.js';
import { nowNs, removeAllTemps, sinceNs } from './measure.js';

const FIRST = ['atomic-write', 'write-vs-size', 'open-vs-history', 'replay'];

function discover(): Map<string, string> {
  const here = dirname(fileURLToPath(import.meta.url));
  const found = new Map<string, string>();
  for (const file of readdirSync(here).sort()) {
    if (!file.endsWith('.js')) continue;
    const path = join(here, file);
    // Only modules that declare a benchmark; helpers (measure, fixtures, child processes) are skipped unimported.
    if (!/^export const bench\b/m.test(readFileSync(path, 'utf8'))) continue;
    found.set(basename(file, '.js'), path);
  }
  const ordered = new Map<string, string>();
  for (const name of FIRST) if (found.has(name)) ordered.set(name, found.get(name)!);
  for (const [name, path] of found) if (!ordered.has(name)) ordered.set(name, path);
  return ordered;
}

async function main(): Promise<number> {
  const available = discover();
  const asked = process.argv.slice(2);
  const unknown = asked.filter((name) => !available.has(name));
  if (unknown.length > 0) {
    console.error(
      `unknown benchmark(s): ${unknown.join(', ')}; choose from ${[...available.keys()].join(', ')}`,
    );
    return 2;
  }
  const names = asked.length > 0 ? asked : [...available.keys()];
  console.log(
    `# twinworld bench: node ${process.version}, ${cpus().length} cpu(s) ${cpus()[0]?.model ?? ''}`.trimEnd(),
  );
  const start = nowNs();
  try {
    for (const name of names) {
      const mod = (await import(pathToFileURL(available.get(name)!).href)) as { bench?: Benchmark };
      if (mod.bench === undefined)
        throw new Error(`bench/${name} does not export a benchmark named "bench"`);
      console.log('');
      await mod.bench.run();
    }
  } finally {
    removeAllTemps();
  }
  console.log('');
  console.log(`# total ${(sinceNs(start) / 1e9).toFixed(1)} s`);
  return 0;
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    removeAllTemps();
    process.exit(130);
  });
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    removeAllTemps();
    console.error(error);
    process.exitCode = 1;
  },
);
