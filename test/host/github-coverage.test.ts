// docs/github-surface-coverage.md is generated from @octokit/rest's own endpoint table and the
// GitHub surface's routes; this fails when the committed page differs (TWINWORLD_WRITE_DOCS=1
// rewrites it), and when a route names an Octokit method that does not serve that route.
import { readFileSync, writeFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { coverageTable, octokitMethods, servedRoutes } from '../support/github-coverage.js';

const DOC = 'docs/github-surface-coverage.md';

it('every route of the surface is the route Octokit calls for the method it names', async () => {
  const sdk = new Map((await octokitMethods()).map((m) => [m.sdk, m.route]));
  const wrong = servedRoutes()
    .filter((r) => sdk.get(r.sdk) !== r.route)
    .map((r) => `${r.sdk}: surface ${r.route}, Octokit ${sdk.get(r.sdk) ?? 'has no such method'}`);
  expect(wrong).toEqual([]);
});

it('docs/github-surface-coverage.md is the generated table', async () => {
  const expected = await coverageTable();
  if (process.env.TWINWORLD_WRITE_DOCS === '1') writeFileSync(DOC, expected);
  expect(readFileSync(DOC, 'utf8')).toBe(expected);
});
