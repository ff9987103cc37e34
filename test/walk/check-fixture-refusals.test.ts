// checkFixture on files that are not a golden log: a missing file, a name given with its
// extension, hashes that are not JSON of the shape saveFixture writes — each a typed refusal
// naming the file and what to pass, where it was a bare ENOENT or a TypeError.
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkFixture } from '../../src/walk/index.js';

const dir = mkdtempSync(join(tmpdir(), 'twinworld-check-fixture-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('checkFixture refuses what is not a golden log', () => {
  it('a missing fixture: LOG_FILE_UNREADABLE naming the file and the pair saveFixture writes', async () => {
    await expect(checkFixture(dir, 'walk-mine')).rejects.toMatchObject({
      code: 'LOG_FILE_UNREADABLE',
      path: 'name',
      message: `${join(dir, 'walk-mine.json')}: no such file; a golden log is walk-mine.jsonl with walk-mine.json beside it, as walk.saveFixture("walk-mine") or \`twinworld walk --save\` writes them`,
      details: { file: join(dir, 'walk-mine.json'), reason: 'ENOENT' },
    });
  });

  it('a name with its extension: says to drop it', async () => {
    copyFileSync(join('fixtures', 'crm.jsonl'), join(dir, 'crm.jsonl'));
    copyFileSync(join('fixtures', 'crm.json'), join(dir, 'crm.json'));
    await expect(checkFixture(dir, 'crm.jsonl')).rejects.toMatchObject({
      code: 'LOG_FILE_UNREADABLE',
      message: expect.stringContaining(
        'name the fixture without its extension: checkFixture(dir, "crm")',
      ),
    });
    await expect(checkFixture(dir, 'crm')).resolves.toMatchObject({ hashesMatch: true });
  });

  it('hashes that are not {hashes, entries}: INVALID_ARGUMENT naming the file, not a TypeError', async () => {
    copyFileSync(join('fixtures', 'crm.jsonl'), join(dir, 'odd.jsonl'));
    for (const text of ['[1]\n', 'not json\n', '{"entries": 6}\n']) {
      writeFileSync(join(dir, 'odd.json'), text);
      await expect(checkFixture(dir, 'odd')).rejects.toMatchObject({
        code: 'INVALID_ARGUMENT',
        path: 'name',
        message: expect.stringContaining(`${join(dir, 'odd.json')} is not a golden log's hashes`),
      });
    }
  });
});
