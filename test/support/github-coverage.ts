// The GitHub surface's coverage, generated: every method @octokit/rest binds (its endpoint table,
// plugin-rest-endpoint-methods' generated endpoints.js) against the routes the surface serves,
// with the events each served route can cause. docs/github-surface-coverage.md is this table;
// test/host/github-coverage.test.ts fails when they differ (TWINWORLD_WRITE_DOCS=1 rewrites it).
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { githubRouteSpecs } from '../../packs/github/surface/index.js';

export interface OctokitMethod {
  /** `issues.create` */
  readonly sdk: string;
  /** `POST /repos/:/:/issues` (parameters blanked) */
  readonly route: string;
  readonly deprecated: boolean;
}

type Table = Record<string, Record<string, [string, unknown?, Record<string, unknown>?]>>;

/** @octokit/rest's own copy of a package when it has one, else the one beside it. */
function packageDir(name: string): string {
  const nested = join('node_modules', '@octokit', 'rest', 'node_modules', name);
  return existsSync(nested) ? nested : join('node_modules', name);
}

async function endpointTable(): Promise<Table> {
  const file = join(
    packageDir('@octokit/plugin-rest-endpoint-methods'),
    'dist-src',
    'generated',
    'endpoints.js',
  );
  return ((await import(pathToFileURL(resolve(file)).href)) as { default: Table }).default;
}

export function blank(route: string): string {
  return route.replace(/\{[^}]+\}/g, ':').replace(/:[A-Za-z_]\w*/g, ':');
}

/** Every method Octokit binds, with its route. */
export async function octokitMethods(): Promise<OctokitMethod[]> {
  const table = await endpointTable();
  return Object.entries(table)
    .flatMap(([scope, methods]) =>
      Object.entries(methods).map(([name, [route, , decorations]]) => ({
        sdk: `${scope}.${name}`,
        route: blank(route),
        deprecated:
          decorations !== undefined && ('deprecated' in decorations || 'renamed' in decorations),
      })),
    )
    .sort((a, b) => a.sdk.localeCompare(b.sdk));
}

/** The surface's routes as Octokit writes them (`GET /repos/:/:`). */
export function servedRoutes() {
  return githubRouteSpecs(() => Promise.resolve()).map((r) => ({
    ...r,
    route: `${r.method} ${blank(r.path)}`,
  }));
}

export async function coverageTable(): Promise<string> {
  const sdk = await octokitMethods();
  const served = new Map(servedRoutes().map((r) => [r.route, r]));
  const implemented = sdk.filter((m) => served.has(m.route));
  const current = sdk.filter((m) => !m.deprecated);
  const currentServed = implemented.filter((m) => !m.deprecated);
  const scopes = new Map<string, { all: number; served: number }>();
  for (const m of current) {
    const scope = m.sdk.split('.')[0]!;
    const s = scopes.get(scope) ?? { all: 0, served: 0 };
    s.all++;
    if (served.has(m.route)) s.served++;
    scopes.set(scope, s);
  }
  const { version } = JSON.parse(
    readFileSync(join('node_modules', '@octokit', 'rest', 'package.json'), 'utf8'),
  ) as { version: string };
  return [
    '# GitHub surface coverage',
    '',
    `Generated from @octokit/rest ${version}'s own endpoint table (\`@octokit/plugin-rest-endpoint-methods\`,`,
    "`dist-src/generated/endpoints.js`) and the GitHub surface's route table",
    '(`packs/github/surface/`); `test/host/github-coverage.test.ts` checks it and rewrites it with',
    '`TWINWORLD_WRITE_DOCS=1`. Do not edit by hand. What the surface does: [github-surface.md](github-surface.md).',
    '',
    `**${currentServed.length} of ${current.length}** @octokit/rest methods served (${((100 * currentServed.length) / current.length).toFixed(1)} %), not counting ${sdk.length - current.length} deprecated or renamed aliases (${implemented.length} of ${sdk.length} with them).`,
    '',
    '| Octokit method | route | kind | events it can send |',
    '| --- | --- | --- | --- |',
    ...currentServed.map((m) => {
      const r = served.get(m.route)!;
      return `| \`${m.sdk}\` | \`${r.method} /github${r.path}\` | ${r.kind} | ${(r.events ?? []).join(', ') || '—'} |`;
    }),
    '',
    '| scope | served / methods |',
    '| --- | --- |',
    ...[...scopes]
      .filter(([, s]) => s.served > 0)
      .map(([scope, s]) => `| \`${scope}\` | ${s.served} / ${s.all} |`),
    '',
  ].join('\n');
}
