// `npm run mutation -- <module> [<module> …]`: runs StrykerJS on each named protocol module in
// turn (concurrency 1, the module's own test files), then prints its score with the mutants
// listed as equivalent in modules.mjs set aside. No module named lists them. Not part of CI.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { MODULES } from './modules.mjs';

const names = process.argv.slice(2);
if (names.length === 0 || names.some((n) => MODULES[n] === undefined)) {
  const unknown = names.filter((n) => MODULES[n] === undefined);
  if (unknown.length > 0) console.error(`unknown module(s): ${unknown.join(', ')}`);
  console.error(`usage: npm run mutation -- <module> [<module> …]\nmodules: ${Object.keys(MODULES).join(', ')}`);
  process.exit(2);
}

/** The source text a mutant replaces, from the report's copy of the file (1-based lines and columns). */
function originalText(source, location) {
  const lines = source.split('\n');
  const { start, end } = location;
  if (start.line === end.line) return lines[start.line - 1].slice(start.column - 1, end.column - 1);
  const first = lines[start.line - 1].slice(start.column - 1);
  const middle = lines.slice(start.line, end.line - 1);
  const last = lines[end.line - 1].slice(0, end.column - 1);
  return [first, ...middle, last].join('\n');
}

export function summarize(name) {
  const report = JSON.parse(readFileSync(`reports/mutation/${name}.json`, 'utf8'));
  const equivalent = MODULES[name].equivalent ?? [];
  const counts = { Killed: 0, Timeout: 0, Survived: 0, NoCoverage: 0, Equivalent: 0, Ignored: 0, other: 0 };
  const open = [];
  for (const [file, result] of Object.entries(report.files)) {
    for (const m of result.mutants) {
      const original = originalText(result.source, m.location);
      const alive = m.status === 'Survived' || m.status === 'NoCoverage';
      if (alive && equivalent.some((e) => e.mutator === m.mutatorName && e.original === original && e.replacement === m.replacement)) {
        counts.Equivalent++;
        continue;
      }
      if (m.status in counts) counts[m.status]++;
      else counts.other++;
      if (alive) open.push(`${file}:${m.location.start.line}:${m.location.start.column} ${m.status} ${m.mutatorName}: ${JSON.stringify(original)} -> ${JSON.stringify(m.replacement)}`);
    }
  }
  const detected = counts.Killed + counts.Timeout;
  const valid = detected + counts.Survived + counts.NoCoverage;
  const score = valid === 0 ? 100 : (100 * detected) / valid;
  const raw = valid + counts.Equivalent === 0 ? 100 : (100 * detected) / (valid + counts.Equivalent);
  return { name, score, raw, counts, open };
}

for (const name of names) {
  const result = spawnSync('npx', ['stryker', 'run', 'stryker.config.mjs'], { stdio: 'inherit', env: { ...process.env, TWINWORLD_MUTATE: name } });
  if (result.status !== 0 || !existsSync(`reports/mutation/${name}.json`)) {
    console.error(`stryker failed for ${name} (exit ${result.status})`);
    process.exitCode = 1;
    continue;
  }
  const s = summarize(name);
  console.log(`\n${name}: ${s.score.toFixed(2)}% (${s.raw.toFixed(2)}% counting equivalents as survivors) — ${JSON.stringify(s.counts)}`);
  for (const line of s.open) console.log(`  open: ${line}`);
}
