// `twinworld replay` checks each twin's hash chain as `import` does: a changed, removed or
// reordered line stops it (exit 1, IMPORT_CHAIN_BROKEN naming the line), and a log written before
// the chain is replayed but said to be unchecked.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cli } from './in-process.js';

const dir = mkdtempSync(join(tmpdir(), 'twinworld-replay-chain-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const golden = readFileSync('fixtures/crm.jsonl', 'utf8').trim().split('\n');
const expected = (
  JSON.parse(readFileSync('fixtures/crm.json', 'utf8')) as { hashes: { crm: string } }
).hashes.crm;
let n = 0;
function file(lines: readonly string[]): string {
  const path = join(dir, `log${++n}.jsonl`);
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

function refusal(stderr: string): {
  error: string;
  message: string;
  path: string;
  details: { line: number };
} {
  return JSON.parse(stderr) as {
    error: string;
    message: string;
    path: string;
    details: { line: number };
  };
}

describe('replay and the hash chain', () => {
  it('the golden log replays to its hash with exit 0 and no note', async () => {
    const r = await cli(['replay', file(golden)]);
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(`${expected}  6 entries (twin "crm")\n`);
    expect(r.stderr).toBe('');
  });

  it('a changed line stops the replay, naming that line', async () => {
    const lines = [...golden];
    lines[3] = lines[3]!.replace('"pro"', '"enterprise"');
    const r = await cli(['replay', file(lines), '--json']);
    expect(r.status).toBe(1);
    expect(r.stdout).toBe('');
    const e = refusal(r.stderr);
    expect(e.error).toBe('IMPORT_CHAIN_BROKEN');
    expect(e.details.line).toBe(4);
    expect(e.message).toMatch(
      /^replay stopped at line 4: seq 4 of twin "crm" was changed after it was written/,
    );
  });

  it('a changed next-to-last line, a removed line and swapped lines are each named', async () => {
    // The last line vouches for the one before it, and nothing vouches for the last line itself.
    const last = [...golden];
    last[4] = last[4]!.replace('"actor":"', '"actor":"x');
    const changed = await cli(['replay', file(last), '--json']);
    expect(changed.status).toBe(1);
    expect(refusal(changed.stderr).details.line).toBe(6);
    expect(refusal(changed.stderr).message).toContain('not the hash of line 5 (seq 5)');

    const removed = [...golden.slice(0, 2), ...golden.slice(3)].map((l, i) =>
      i >= 2 ? l.replace(/"seq":(\d+)/, (_, s: string) => `"seq":${Number(s) - 1}`) : l,
    );
    const gap = await cli(['replay', file(removed), '--json']);
    expect(gap.status).toBe(1);
    expect(refusal(gap.stderr)).toMatchObject({
      error: 'IMPORT_CHAIN_BROKEN',
      path: 'line 3.prev',
    });
    expect(refusal(gap.stderr).message).toMatch(/lines between them were removed or reordered/);

    const swapped = [...golden];
    [swapped[0], swapped[1]] = [
      swapped[1]!.replace('"seq":2', '"seq":1'),
      swapped[0]!.replace('"seq":1', '"seq":2'),
    ];
    const order = await cli(['replay', file(swapped), '--json']);
    expect(order.status).toBe(1);
    expect(refusal(order.stderr).error).toBe('IMPORT_CHAIN_BROKEN');
  });

  it('a line whose prev was dropped inside a chained log is refused', async () => {
    const lines = [...golden];
    lines[2] = lines[2]!.replace(/"prev":"[0-9a-f]{64}",/, '');
    const r = await cli(['replay', file(lines), '--json']);
    expect(r.status).toBe(1);
    expect(refusal(r.stderr)).toMatchObject({ error: 'IMPORT_CHAIN_BROKEN', path: 'line 3.prev' });
  });

  it('a log from before the chain replays and says it was not checked', async () => {
    const lines = golden.map((l) => l.replace(/"prev":"[0-9a-f]{64}",/, ''));
    const r = await cli(['replay', file(lines)]);
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(`${expected}  6 entries (twin "crm")\n`);
    expect(r.stderr).toBe(
      'note: twin "crm" has 6 entries without prev (a log written before the hash chain): replayed, but not checked against the chain\n',
    );
    const json = await cli(['replay', file(lines), '--json']);
    expect(json.json()).toMatchObject({ hash: expected, unchained: { crm: 6 } });
    expect((await cli(['replay', file(golden), '--json'])).json()).toMatchObject({ unchained: {} });
  });
});
