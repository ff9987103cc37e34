// `npm run mutation -- <module> [<module> …]`: runs StrykerJS on each named protocol module in
// turn (concurrency 1, the module's own test files), then prints its score with the mutants
// listed as equivalent in modules.mjs set aside. No module named lists them. Not part of CI.
// --incremental re-tests only what changed since the module's last run (its incremental file).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { MODULES } from './modules.mjs';
import { summarize } from './summary.mjs';

const args = process.argv.slice(2);
// --report: summarize the reports already written, without running Stryker again.
const reportOnly = args.includes('--report');
const incremental = args.includes('--incremental');
const names = args.filter((a) => a !== '--report' && a !== '--incremental');
if (names.length === 0 || names.some((n) => MODULES[n] === undefined)) {
  const unknown = names.filter((n) => MODULES[n] === undefined);
  if (unknown.length > 0) console.error(`unknown module(s): ${unknown.join(', ')}`);
  console.error(
    `usage: npm run mutation -- [--incremental | --report] <module> [<module> …]\nmodules: ${Object.keys(MODULES).join(', ')}`,
  );
  process.exit(2);
}

// Some tests of a module start compiled child processes (dist/): build them from the source as it
// is now, since dist/ is missing in a worktree that never ran npm ci and stale after edits.
if (!reportOnly && spawnSync('npm', ['run', 'build'], { stdio: 'inherit' }).status !== 0) {
  console.error('npm run build failed: the compiled test workers are needed before mutating');
  process.exit(1);
}

for (const name of names) {
  if (reportOnly) {
    print(summarize(name));
    continue;
  }
  const stryker = [
    'stryker',
    'run',
    'stryker.config.mjs',
    ...(incremental ? ['--incremental'] : []),
  ];
  const result = spawnSync('npx', stryker, {
    stdio: 'inherit',
    env: { ...process.env, TWINWORLD_MUTATE: name },
  });
  if (result.status !== 0 || !existsSync(`reports/mutation/${name}.json`)) {
    console.error(`stryker failed for ${name} (exit ${result.status})`);
    process.exitCode = 1;
    continue;
  }
  print(summarize(name));
}

function print(s) {
  console.log(
    `\n${s.name}: ${s.score.toFixed(2)}% (${s.raw.toFixed(2)}% counting equivalents as survivors) — ${JSON.stringify(s.counts)}`,
  );
  for (const line of s.setAside) console.log(`  equivalent: ${line}`);
  for (const line of s.open) console.log(`  open: ${line}`);
}
