// openWorld refuses options it could not use before anything opens, naming the option: a clock,
// seed or store of the wrong shape otherwise failed later as a bare TypeError far from the call,
// and a misspelt key or an unsupported SQLite setting was silently ignored or applied.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryBackend } from '../../src/storage/memory/memory-backend.js';
import { VirtualClock } from '../../src/world/clock.js';
import { openWorld, type WorldOptions } from '../../src/world/world.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function attempt(options: Record<string, unknown>): unknown {
  try {
    openWorld(options as unknown as WorldOptions);
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('openWorld options', () => {
  it.each([
    [{ clock: '2026-01-01T00:00:00Z' }, 'clock', 'new VirtualClock('],
    [{ clock: new Date(0) }, 'clock', 'got an object (Date)'],
    [{ seed: Number.NaN }, 'seed', 'got NaN'],
    [{ seed: { n: 1 } }, 'seed', 'a string or a finite number'],
    [{ create: 'no' }, 'create', 'true or false'],
    [{ onError: 'log' }, 'onError', 'must be a function'],
    [{ secrets: {} }, 'secrets', 'SecretStore'],
    [{ backend: {} }, 'backend', 'StorageBackend'],
    [
      { roots: './x' },
      'roots',
      'unknown option "roots" (did you mean "root"?); openWorld takes root, create, clock',
    ],
    [{ sqlite: 'FULL' }, 'sqlite', "such as {synchronous: 'FULL'}"],
    [{ sqlite: { synchronous: 'OFF' } }, 'sqlite.synchronous', "'NORMAL' or 'FULL'"],
    [{ sqlite: { busyTimeoutMs: -1 } }, 'sqlite.busyTimeoutMs', 'got -1'],
    [
      { sqlite: { busyTimeout: 5 } },
      'sqlite.busyTimeout',
      '(did you mean "busyTimeoutMs"?); sqlite takes synchronous',
    ],
  ])('refuses %j at %s', (bad, path, words) => {
    const root = mkdtempSync(join(tmpdir(), 'tw-options-'));
    dirs.push(root);
    const error = attempt({ root: join(root, 'w'), ...bad });
    expect(error).toMatchObject({
      code: 'INVALID_ARGUMENT',
      path,
      message: expect.stringContaining(words),
    });
    expect((error as Error).message).toMatch(/^openWorld: /);
  });

  it('refuses a bad sqlite.walAutocheckpoint before the root folder is made', () => {
    const root = mkdtempSync(join(tmpdir(), 'tw-options-'));
    dirs.push(root);
    for (const pages of [-1, 1.5, Number.NaN, '1000'])
      expect(
        attempt({ root: join(root, 'w'), create: true, sqlite: { walAutocheckpoint: pages } }),
      ).toMatchObject({
        code: 'INVALID_ARGUMENT',
        path: 'sqlite.walAutocheckpoint',
        message: expect.stringMatching(/^openWorld: .*whole number of pages/),
      });
    expect(existsSync(join(root, 'w'))).toBe(false);
  });

  it('refuses sqlite options where no SQLite root reads them, naming which', () => {
    // They were dropped without a word: synchronous: 'FULL' on memory or another backend did nothing.
    const memory = attempt({ root: ':memory:', sqlite: { synchronous: 'FULL' } });
    expect(memory).toMatchObject({
      code: 'INVALID_ARGUMENT',
      path: 'sqlite',
      message: expect.stringContaining(
        "sqlite.synchronous apply only to a SQLite root (a folder), and root ':memory:'",
      ),
    });
    const backend = attempt({
      root: ':memory:',
      backend: new MemoryBackend(),
      sqlite: { busyTimeoutMs: 100, walAutocheckpoint: 0 },
    });
    expect(backend).toMatchObject({
      code: 'INVALID_ARGUMENT',
      path: 'sqlite',
      message: expect.stringContaining(
        'new SqliteBackend(root, {busyTimeoutMs, walAutocheckpoint})',
      ),
    });
    // Nothing set asks for nothing.
    for (const sqlite of [{}, { synchronous: undefined }]) {
      const world = openWorld({ root: ':memory:', sqlite } as WorldOptions);
      void world.close();
    }
  });

  it('takes every documented option, and undefined as not given', async () => {
    const root = mkdtempSync(join(tmpdir(), 'tw-options-'));
    dirs.push(root);
    const world = openWorld({
      root: join(root, 'w'),
      create: true,
      clock: new VirtualClock('2026-01-01T00:00:00Z'),
      seed: 'walk-1',
      sqlite: { synchronous: 'FULL', busyTimeoutMs: 0, walAutocheckpoint: 0 },
      resolveSecret: () => undefined,
      onError: () => {},
      secrets: undefined,
      backend: undefined,
    });
    await world.twin('a').applyWrite({
      operation: 'x.create',
      subjectType: 'x',
      subjectId: '1',
      fields: {},
    });
    await world.close();
    // SQLite reads the level in any case; lower case worked before the check and still does.
    const lower = openWorld({
      root: join(root, 'w'),
      sqlite: { synchronous: 'full' as 'FULL' },
    });
    expect(await lower.twin('a').head()).toBe(1);
    await lower.close();
  });
});
