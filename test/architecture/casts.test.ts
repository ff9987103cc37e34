// Stored JSON is typed through record kinds (src/state/record-kind.ts), not by casting at every
// read. Issue 25 asks for fewer than 20 `as unknown as` in src/ and packs/, each explained where it
// stands: src/ holds 5, each explained; the packs held 4 when record kinds landed, and the vendor
// surfaces and renderers merged after that (packs/*/surface/, packs/slack/views.ts,
// packs/github/payload-activity.ts, triage.ts, …) brought 61 more that still cast. Until they
// move to their record kinds, this is a ratchet: the count may fall, never rise. (35 → 29: the
// Stripe surface types its handlers' inputs through one explained helper, surface/reads.ts. Then
// 14 → 9: isWellFormed is typed by the ES2024.String lib, a trigger record's repeat totals are a
// field of its record kind, and an unused plan-to-JSON helper went.)
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';

function casts(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return casts(path);
    if (!path.endsWith('.ts')) return [];
    return readFileSync(path, 'utf8')
      .split('\n')
      .flatMap((line, i) => (line.includes('as unknown as') ? [`${path}:${i + 1}`] : []));
  });
}

it('src/ keeps its `as unknown as` under 20 (each explained where it stands)', () => {
  const found = casts('src');
  expect(found.length, found.join('\n')).toBeLessThanOrEqual(5);
});

it('packs/ casts no more than when the surfaces were merged (goal: record kinds everywhere)', () => {
  const found = casts('packs');
  expect(found.length, found.join('\n')).toBeLessThanOrEqual(4);
});
