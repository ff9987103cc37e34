// A module's mutation score from its StrykerJS JSON report, with the mutants listed as
// equivalent in modules.mjs set aside (matched by mutator, original text and replacement).
import { readFileSync } from 'node:fs';
import { MODULES } from './modules.mjs';

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

export function summarize(name, file = `reports/mutation/${name}.json`) {
  const report = JSON.parse(readFileSync(file, 'utf8'));
  const equivalent = MODULES[name].equivalent ?? [];
  const counts = {
    Killed: 0,
    Timeout: 0,
    Survived: 0,
    NoCoverage: 0,
    Equivalent: 0,
    Ignored: 0,
    other: 0,
  };
  const open = [];
  const setAside = [];
  for (const [file, result] of Object.entries(report.files)) {
    for (const m of result.mutants) {
      const original = originalText(result.source, m.location);
      const alive = m.status === 'Survived' || m.status === 'NoCoverage';
      const where = `${file}:${m.location.start.line}:${m.location.start.column}`;
      const match = alive
        ? equivalent.find(
            (e) =>
              e.mutator === m.mutatorName &&
              e.original === original &&
              e.replacement === m.replacement,
          )
        : undefined;
      if (match !== undefined) {
        counts.Equivalent++;
        // Listed with its place, so a reviewer sees each mutant a text-matched reason covers.
        setAside.push(`${where} ${m.mutatorName}: ${JSON.stringify(original)} — ${match.reason}`);
        continue;
      }
      if (m.status in counts) counts[m.status]++;
      else counts.other++;
      if (alive)
        open.push(
          `${where} ${m.status} ${m.mutatorName}: ${JSON.stringify(original)} -> ${JSON.stringify(m.replacement)}`,
        );
    }
  }
  const detected = counts.Killed + counts.Timeout;
  const valid = detected + counts.Survived + counts.NoCoverage;
  const score = valid === 0 ? 100 : (100 * detected) / valid;
  const raw =
    valid + counts.Equivalent === 0 ? 100 : (100 * detected) / (valid + counts.Equivalent);
  return { name, score, raw, counts, open, setAside };
}
