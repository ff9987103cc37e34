// What a new user types wrong, answered in-process as the CLI answers it: a typed refusal that
// names what was wrong and where, exit 1 (or 2 for usage), and nothing left behind.
import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../support/backends.js';
import { cli } from './in-process.js';

let dir: string;
beforeAll(() => {
  dir = tempDir('twinworld-input-refusals-');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A fresh root path under the test folder, not yet created. */
let roots = 0;
function freshRoot(): string {
  return join(dir, `root-${++roots}`);
}

describe('a log file that is not one', () => {
  it('a folder: LOG_FILE_UNREADABLE "is a folder, not a log file", for replay and import', async () => {
    const folder = join(dir, 'a-folder');
    mkdirSync(folder);
    const root = freshRoot();
    for (const args of [
      ['replay', folder],
      ['import', 'stripe', folder, '--root', root],
    ]) {
      const r = await cli(args);
      expect(r.stderr).toBe(
        `error LOG_FILE_UNREADABLE: ${folder}: is a folder, not a log file; pass a .jsonl file such as \`twinworld export\` writes (at file)\n`,
      );
      expect(r.status).toBe(1);
    }
    expect(existsSync(root)).toBe(false);
  });

  it('a missing file: "no such file" naming it, with --json too, and no root created', async () => {
    const missing = join(dir, 'nonexist.jsonl');
    const root = freshRoot();
    const r = await cli(['import', 'stripe', missing, '--root', root]);
    expect(r.stderr).toMatch(/^error LOG_FILE_UNREADABLE: .*nonexist\.jsonl: no such file; /);
    expect(r.status).toBe(1);
    expect(existsSync(root)).toBe(false);
    const j = await cli(['replay', missing, '--json']);
    expect(JSON.parse(j.stderr)).toMatchObject({
      error: 'LOG_FILE_UNREADABLE',
      path: 'file',
      details: { file: missing, reason: 'ENOENT' },
    });
    expect(j.status).toBe(1);
  });
});
