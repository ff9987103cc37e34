// The README's concept example runs as written, against the built package (as `import from
// 'twinworld'` resolves for a user), so the first code a newcomer reads stays true.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect, it } from 'vitest';
import { tempDir } from './support/backends.js';

it('the concept example in README.md runs and does what its comments say', async () => {
  const readme = readFileSync('README.md', 'utf8');
  const block = /```ts\n(import \{ commit, openWorld[\s\S]*?)```/.exec(readme)?.[1];
  expect(block).toBeDefined();
  const dir = tempDir('twinworld-readme-');
  const file = resolve(dir, 'example.mjs');
  const source = block!.replace(
    "from 'twinworld'",
    `from ${JSON.stringify(pathToFileURL(resolve('dist/src/index.js')).href)}`,
  );
  writeFileSync(file, `${source}\nexport { shop, upgraded };\n`);
  try {
    const { shop, upgraded } = await import(pathToFileURL(file).href);
    expect(upgraded.result).toBe(true);
    expect(
      (await shop.lookup('customer', 'byPlan', 'pro')).map((r: { id: string }) => r.id),
    ).toEqual(['cus_1']);
    expect(await shop.hash()).toMatch(/^sha256:[0-9a-f]{64}$/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
