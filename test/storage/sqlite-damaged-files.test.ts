// A SQLite file of a world root that is no database, a damaged one, or a folder where the file
// belongs: each is refused naming the file and what it holds (STORE_FAILED), never as the driver's
// "SQLITE_NOTADB: file is not a database" or as a root that is not writable.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openWorld } from '../../src/world/world.js';
import { tempDir } from '../support/backends.js';
import { tw } from '../support/cli-process.js';

const dir = tempDir('twinworld-damaged-files-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const put = { operation: 'item.put', subjectType: 'item', subjectId: 'i', fields: {} };

/** A root whose file `name` is `garbage` (text) or a folder. */
function rootWith(label: string, name: string, kind: 'garbage' | 'folder'): string {
  const root = join(dir, label);
  mkdirSync(join(root, 'twins'), { recursive: true });
  const file = join(root, name);
  if (kind === 'folder') mkdirSync(file);
  else writeFileSync(file, 'these are not the bytes of a database\n'.repeat(200));
  return root;
}

describe('a damaged SQLite file in a world root', () => {
  for (const kind of ['garbage', 'folder'] as const) {
    it(`a twin's database that is ${kind === 'folder' ? 'a folder' : 'no database'}`, async () => {
      const root = rootWith(`twin-${kind}`, join('twins', 'crm.db'), kind);
      const world = openWorld({ root });
      const file = join(root, 'twins', 'crm.db');
      await expect(world.twin('crm').applyWrite(put)).rejects.toMatchObject({
        code: 'STORE_FAILED',
        path: 'root',
        details: { file },
        message: expect.stringContaining(
          kind === 'folder'
            ? `${file} is a folder, but that is where the root keeps twin "crm"'s log`
            : `${file}, where the root keeps twin "crm"'s log, is not a SQLite database or is damaged`,
        ),
      });
      await world.close();
    });

    it(`the secret and idempotency stores when their file is ${kind === 'folder' ? 'a folder' : 'no database'}`, async () => {
      const root = rootWith(`stores-${kind}`, 'secrets.db', kind);
      rootWith(`stores-${kind}`, 'idempotency.db', kind);
      const world = openWorld({ root });
      // Was: ROOT_READ_ONLY "the world root must be a writable folder", in a root that is one.
      // The SQLite store answers at once: its refusal is thrown, not a rejection.
      expect(() => world.secrets.set('ep', 'whsec_x')).toThrow(
        expect.objectContaining({
          code: 'STORE_FAILED',
          details: expect.objectContaining({ file: join(root, 'secrets.db') }),
          message: expect.stringContaining("where the root keeps the world's secrets"),
        }),
      );
      expect(() => world.idempotency.claim('scope', 'key', 'fingerprint', 0, 1000)).toThrow(
        expect.objectContaining({ code: 'STORE_FAILED' }),
      );
      await world.close();
    });
  }

  it('the CLI says so, not the driver', async () => {
    const root = rootWith('cli', join('twins', 'crm.db'), 'garbage');
    const r = await tw(['hash', 'crm', '--root', root]);
    expect(r.status).toBe(1);
    // Was: "error SQLITE_NOTADB: file is not a database".
    expect(r.stderr).toMatch(
      /^error STORE_FAILED: .*crm\.db, where the root keeps twin "crm"'s log, is not a SQLite database/,
    );
  });
});
