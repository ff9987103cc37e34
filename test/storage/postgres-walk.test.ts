// A walk on PostgreSQL writes the log it writes on SQLite and in memory: the golden Stripe walk run
// over the PostgreSQL backend exports the committed fixture's bytes and reaches its hashes.
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { PostgresBackend } from '../../src/storage/postgres/index.js';
import { goldenWalks } from '../support/golden-walks.js';
import { postgresUrl } from './postgres-url.js';

it('the golden walk-stripe on PostgreSQL exports the fixture byte for byte, with the same hashes', async () => {
  const golden = goldenWalks.find((g) => g.name === 'walk-stripe')!;
  const walk = await golden.run({
    backend: new PostgresBackend(postgresUrl(), `walk_${process.pid}_${Date.now().toString(36)}`),
  });
  try {
    const lines = await walk.exportLog();
    expect(`${lines.join('\n')}\n`).toBe(readFileSync('fixtures/walk-stripe.jsonl', 'utf8'));
    const meta = JSON.parse(readFileSync('fixtures/walk-stripe.json', 'utf8')) as {
      hashes: Record<string, string>;
    };
    expect(await walk.hashes()).toEqual(meta.hashes);
  } finally {
    await walk.close();
  }
});
