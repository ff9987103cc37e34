// The documentation in the repository stays true: docs/errors.md is what src/error-catalog.ts
// renders and lists every code TwinErrorCode has, docs/cli.md's table has a row for every command,
// the serve configuration example in docs/deferred.md is accepted as written, every relative link
// resolves, no code cites a document outside the repository, and README.md stays short.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { COMMAND_NAMES } from '../src/cli/command-table.js';
import { ERROR_CATALOG } from '../src/error-catalog.js';
import { validateServeConfig } from '../src/host/serve/config.js';
import { renderErrorsDoc } from './support/errors-doc.js';

const read = (path: string) => readFileSync(path, 'utf8');

function files(dir: string, keep: (path: string) => boolean): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (name === 'node_modules' || name === 'dist' || name.startsWith('.')) return [];
    return statSync(path).isDirectory() ? files(path, keep) : keep(path) ? [path] : [];
  });
}

describe('docs/errors.md', () => {
  it('is exactly what `npm run docs:errors` writes from the catalog', () => {
    expect(read('docs/errors.md')).toBe(renderErrorsDoc());
  });

  it('lists every code of TwinErrorCode, each with a status and a fix', () => {
    const union = /export type TwinErrorCode =([^;]*);/.exec(read('src/errors.ts'))?.[1] ?? '';
    const codes = [...union.matchAll(/'([A-Z_]+)'/g)].map((m) => m[1]!);
    expect(codes.length).toBeGreaterThan(40);
    expect(Object.keys(ERROR_CATALOG).sort()).toEqual([...codes].sort());
    const page = read('docs/errors.md');
    for (const code of codes) {
      const row = new RegExp(`^\\| \`${code}\` \\| (\\d{3}) \\| (.+) \\| (.+) \\|$`, 'm').exec(
        page,
      );
      expect(row, code).not.toBeNull();
      expect(Number(row![1])).toBeGreaterThanOrEqual(400);
    }
  });
});

it('the serve configuration with a dispatch route in docs/deferred.md is accepted as written', () => {
  const page = read('docs/deferred.md');
  const block = /## Serve configuration[\s\S]*?```json\n([\s\S]*?)```/.exec(page)?.[1];
  expect(block).toBeDefined();
  const config = validateServeConfig(JSON.parse(block!), {
    STRIPE_WEBHOOK_SECRET: 'whsec_docsExampleSecret0000000000000001',
  });
  expect(config.routes[0]?.dispatch).toEqual({
    debounce: { key: 'payload.body.data.object.id', period: 30_000, maxWait: 300_000 },
    concurrency: { limit: 2, key: 'payload.body.data.object.id' },
    ttl: 3_600_000,
  });
});

it('docs/cli.md has a row for every command `twinworld --help` lists', () => {
  const rows = read('docs/cli.md')
    .split('\n')
    .filter((line) => line.startsWith('| `twinworld '));
  const missing = COMMAND_NAMES.filter(
    (name) => !rows.some((row) => row.startsWith(`| \`twinworld ${name}`)),
  );
  expect(missing).toEqual([]);
});

it('every relative link in README.md, CONTRIBUTING.md and the docs resolves', () => {
  const pages = [
    'README.md',
    'CONTRIBUTING.md',
    'bench/README.md',
    ...files('docs', (p) => p.endsWith('.md')),
  ];
  const broken: string[] = [];
  for (const page of pages)
    for (const [, target] of read(page).matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g))
      if (!/^[a-z]+:/.test(target!) && !existsSync(resolve(dirname(page), target!)))
        broken.push(`${page} → ${target}`);
  expect(broken).toEqual([]);
});

it('nothing cites a design document outside the repository', () => {
  const sources = [
    ...['src', 'packs', 'test', 'bench', 'docs'].flatMap((dir) =>
      files(dir, (p) => /\.(ts|mjs|cjs|md)$/.test(p)),
    ),
    ...readdirSync('.').filter((p) => /\.(ts|mjs|cjs|md|json)$/.test(p)),
  ].filter((p) => p !== join('test', 'docs.test.ts'));
  // The design notes and the vendor reference the project was started from live outside it.
  const citing = sources.filter((p) => /(DESIGN(\.md)?|reference) ?§/i.test(read(p)));
  expect(citing).toEqual([]);
});

it('README.md fits on a screen or two (under 250 lines)', () => {
  expect(read('README.md').split('\n').length).toBeLessThan(250);
});
