// The World constructor on a path that cannot be a world: typed refusals naming the root and what
// to do, never an errno (EEXIST, ENOTDIR) or a driver code; a world opened to read never creates.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openWorld } from '../../src/world/world.js';

const dir = mkdtempSync(join(tmpdir(), 'twinworld-root-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function refusal(fn: () => unknown): { code: string; path: string; message: string } {
  try {
    fn();
  } catch (error) {
    const e = error as { code: string; path: string; message: string };
    return { code: e.code, path: e.path, message: e.message };
  }
  throw new Error('accepted');
}

describe('world roots', () => {
  it('a root that is a file, or that lies below one, is ROOT_NOT_A_FOLDER', () => {
    const file = join(dir, 'plain.txt');
    writeFileSync(file, 'x');
    expect(refusal(() => openWorld({ root: file }))).toMatchObject({
      code: 'ROOT_NOT_A_FOLDER',
      path: 'root',
      message: expect.stringContaining('is a file, not a folder'),
    });
    expect(refusal(() => openWorld({ root: join(file, 'below') }))).toMatchObject({
      code: 'ROOT_NOT_A_FOLDER',
      message: expect.stringContaining(file),
    });
    expect(refusal(() => openWorld({ root: join(file, 'below'), create: false }))).toMatchObject({
      code: 'ROOT_NOT_A_FOLDER',
    });
  });

  it('a missing root opened to read is ROOT_NOT_FOUND and is not created; opened to write, it is created', async () => {
    const missing = join(dir, 'missing', 'world');
    expect(refusal(() => openWorld({ root: missing, create: false }))).toMatchObject({
      code: 'ROOT_NOT_FOUND',
      path: 'root',
      message: expect.stringContaining('check --root'),
    });
    expect(existsSync(join(dir, 'missing'))).toBe(false);
    const world = openWorld({ root: missing });
    await world.twin('t').applyWrite({ operation: 'x.create', subjectType: 'x', subjectId: '1' });
    await world.close();
    expect(existsSync(join(missing, 'twins', 't.db'))).toBe(true);
  });
});
