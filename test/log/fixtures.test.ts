// Golden logs: every committed fixture replays to the state hashes recorded beside it, and the
// kernel's own golden workloads still write those files byte for byte.
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readLines } from '../../src/log/jsonl.js';
import { replayLines } from '../../src/world/replay.js';
import { kernelGoldenLogs } from '../support/golden-kernel.js';

const fixtures = readdirSync('fixtures').filter((f) => f.endsWith('.json'));

describe('golden logs', () => {
  it('there are fixtures to check', () => {
    expect(fixtures.length).toBeGreaterThanOrEqual(2);
  });

  for (const file of fixtures) {
    it(`fixtures/${file.replace(/\.json$/, '.jsonl')} replays to its recorded hashes`, async () => {
      const expected = JSON.parse(readFileSync(`fixtures/${file}`, 'utf8')) as {
        hashes: Record<string, string>;
        entries: number;
      };
      const result = await replayLines(readLines(`fixtures/${file.replace(/\.json$/, '.jsonl')}`));
      expect(result.entries).toBe(expected.entries);
      expect(result.hashes).toEqual(expected.hashes);
    });
  }

  it('the kernel golden workloads are deterministic and match the committed files', async () => {
    const [a, b] = await Promise.all([kernelGoldenLogs(), kernelGoldenLogs()]);
    expect(a).toEqual(b);
    for (const log of a!) {
      expect(readFileSync(`fixtures/${log.name}.jsonl`, 'utf8')).toBe(`${log.lines.join('\n')}\n`);
    }
  });

  it('a tampered line stops the replay, naming it', async () => {
    const lines = readFileSync('fixtures/crm.jsonl', 'utf8').trim().split('\n');
    lines[3] = lines[3]!.replace('"pro"', '"enterprise"');
    await expect(replayLines(lines)).rejects.toMatchObject({
      code: 'IMPORT_CHAIN_BROKEN',
      path: 'line 4',
    });
  });
});
