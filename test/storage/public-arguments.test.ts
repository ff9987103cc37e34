// The postgres entry refuses options it cannot use up front, naming the key: a misspelt option
// ({poolsize: 2}) was dropped and its default used, and null options were a TypeError. Nothing
// here connects: the backend opens its pool at first use.
import { describe, expect, it } from 'vitest';
import { PostgresBackend } from '../../src/storage/postgres/index.js';

const URL = 'postgres://someone@127.0.0.1:1/db';

describe('public arguments of the postgres entry', () => {
  it('new PostgresBackend refuses a misspelt option, suggesting the one meant, and options that are none', async () => {
    const make = (options: unknown) =>
      new PostgresBackend(URL, 'w', options as ConstructorParameters<typeof PostgresBackend>[2]);
    for (const [options, path, words] of [
      [{ poolsize: 2 }, 'options.poolsize', '(did you mean "poolSize"?)'],
      [{ lockTimeout: 5 }, 'options.lockTimeout', 'unknown option'],
      [null, 'options', 'got null'],
    ] as const)
      expect(() => make(options)).toThrow(
        expect.objectContaining({
          code: 'INVALID_ARGUMENT',
          path,
          message: expect.stringContaining(words),
        }),
      );
    await make({ poolSize: 2 }).close();
  });
});
