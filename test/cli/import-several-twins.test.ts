// `import` takes one twin's log: a file holding several twins' logs (a walk's saved golden log)
// is refused as that, by the real binary, before the world opens; from stdin, where the lines
// cannot be read twice, at the first line of another twin, keeping only the lines before it.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../support/backends.js';
import { BIN } from '../support/cli-process.js';

const dir = tempDir('twinworld-import-several-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A walk's saved log: github's lines first, then slack's, stripe's and the trigger engine's. */
const WALK_LOG = join('fixtures', 'walk-triggers.jsonl');

function tw(args: string[], input = '') {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    encoding: 'utf8',
    input,
    timeout: 60_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The first line naming another twin than line 1, as the error must name it. */
function firstOtherTwin(): { line: number; twin: string; first: string } {
  const twins = readFileSync(WALK_LOG, 'utf8')
    .trim()
    .split('\n')
    .map((l) => (JSON.parse(l) as { twin: string }).twin);
  const line = twins.findIndex((t) => t !== twins[0]) + 1;
  return { line, twin: twins[line - 1]!, first: twins[0]! };
}

describe('import of a file of several twins', () => {
  it('is refused before the world opens, naming the line, both twins and what to do', () => {
    const { line, twin, first } = firstOtherTwin();
    const root = join(dir, 'from-file');
    // Was: the first twin's lines imported under "stripe", then IMPORT_CHAIN_BROKEN saying the
    // last of them "was changed after it was written".
    const r = tw(['import', 'stripe', WALK_LOG, '--root', root, '--json']);
    expect(r.status).toBe(1);
    expect(r.stdout).toBe('');
    const error = JSON.parse(r.stderr);
    expect(error).toMatchObject({
      error: 'IMPORT_MALFORMED_LINE',
      path: `line ${line}.twin`,
      details: { line, twin, before: first },
    });
    expect(error.message).toContain(
      `it is an entry of twin "${twin}", but the lines before it are of twin "${first}"`,
    );
    expect(error.message).toContain('holds the logs of several twins');
    expect(error.message).toContain('nothing was imported');
    expect(existsSync(root)).toBe(false);
    // replay, which the message points to, reads the same file whole.
    expect(tw(['replay', WALK_LOG]).status).toBe(0);
  });

  it('from stdin stops at the first line of another twin, keeping the lines before it', () => {
    const { line, twin } = firstOtherTwin();
    const root = join(dir, 'from-stdin');
    const r = tw(['import', 'stripe', '-', '--root', root], readFileSync(WALK_LOG, 'utf8'));
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(
      new RegExp(
        `^error IMPORT_MALFORMED_LINE: import into twin "stripe" stopped at line ${line}: it is an entry of twin "${twin}".*lines before it were kept \\(${line - 1} appended\\)`,
      ),
    );
    expect(tw(['hash', 'stripe', '--root', root]).status).toBe(0);
    expect(tw(['verify', 'stripe', '--root', root]).stdout).toContain(`${line - 1} entries`);
  });

  it("one twin's log still imports under another name", () => {
    const source = join(dir, 'source');
    const log = join(dir, 'github.jsonl');
    expect(tw(['import', 'github', '-', '--root', source], githubLines()).status).toBe(0);
    expect(tw(['export', 'github', '--root', source, '--out', log]).status).toBe(0);
    const r = tw(['import', 'gh', log, '--root', join(dir, 'renamed')]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });
});

/** The first twin's lines of the walk log: one twin's whole log, as an export would give it. */
function githubLines(): string {
  const { line } = firstOtherTwin();
  return `${readFileSync(WALK_LOG, 'utf8')
    .split('\n')
    .slice(0, line - 1)
    .join('\n')}\n`;
}
