// Golden walks: every fixture replays to its recorded hashes and keeps the delivery invariants;
// running the golden walks again writes the committed files byte for byte; and a walk run in two
// separate processes exports the same bytes and hashes.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkFixture } from '../../src/walk/index.js';
import { runNode } from '../support/cli-process.js';
import { goldenWalks } from '../support/golden-walks.js';

const fixtures = readdirSync('fixtures')
  .filter((f) => f.endsWith('.json'))
  .map((f) => f.replace(/\.json$/, ''));

describe('golden logs', () => {
  it('there is a golden walk fixture for every pack', () => {
    for (const name of ['walk-stripe', 'walk-github', 'walk-slack', 'walk-standard-webhooks'])
      expect(fixtures).toContain(name);
  });

  for (const name of fixtures) {
    it(`fixtures/${name}.jsonl replays to its hashes and keeps the delivery invariants`, async () => {
      const check = await checkFixture('fixtures', name);
      expect(check.hashes).toEqual(check.expected.hashes);
      expect(check.hashesMatch).toBe(true);
      expect(check.violations).toEqual([]);
      if (
        name.startsWith('walk-') &&
        !['walk-triggers', 'walk-deferred', 'walk-schedules'].includes(name)
      )
        expect(check.claims).toBeGreaterThan(check.deliveries);
    });
  }

  it('regenerating the golden walks writes the committed files byte for byte', () => {
    const dir = mkdtempSync(join(tmpdir(), 'walk-fixtures-'));
    try {
      const run = spawnSync(process.execPath, ['dist/test/support/write-walk-fixtures.js', dir], {
        encoding: 'utf8',
      });
      expect(run.stderr).toBe('');
      expect(run.status).toBe(0);
      for (const { name } of goldenWalks) {
        for (const ext of ['jsonl', 'json'])
          expect(readFileSync(join(dir, `${name}.${ext}`), 'utf8'), `${name}.${ext}`).toBe(
            readFileSync(`fixtures/${name}.${ext}`, 'utf8'),
          );
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the same walks in two separate processes export identical bytes, hashes and reports', async () => {
    // Both at once: each takes seconds, and one after the other doubled the wait on a loaded machine.
    const runs = await Promise.all([0, 1].map(() => runNode(['dist/test/support/walk-worker.js'])));
    for (const run of runs) {
      expect(run.stderr).toBe('');
      expect(run.status).toBe(0);
    }
    expect(runs[0]!.stdout).toBe(runs[1]!.stdout);
    const out = JSON.parse(runs[0]!.stdout) as Record<
      string,
      { log: string; hashes: Record<string, string> }
    >;
    expect(Object.keys(out)).toEqual(goldenWalks.map((g) => g.name));
    for (const { name } of goldenWalks) {
      expect(`${out[name]!.log}\n`).toBe(readFileSync(`fixtures/${name}.jsonl`, 'utf8'));
    }
  });
});
