// GitHub's page-based pagination: `per_page` (default 30, at most 100) and `page` (from 1), and a
// `Link` header whose URLs are absolute and on the twin's own origin — Octokit's paginate() follows
// `rel="next"` as it is, ignoring its baseUrl, so a URL on api.github.com would leave the twin.
import type { JsonValue } from '../../../src/index.js';
import { answer, type RouteAnswer } from '../../../src/host/index.js';
import { invalidField } from './errors.js';
import type { GitHubContext } from './route.js';

function positive(ctx: GitHubContext, name: string, fallback: number): number {
  const raw = ctx.input[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1)
    throw invalidField('Pagination', name, 'invalid', `${name} must be a positive integer`);
  return n;
}

/** One page of `items` (already in GitHub's order), answered with its Link header. */
export function page(ctx: GitHubContext, items: readonly JsonValue[]): RouteAnswer {
  const { slice, headers } = pageOf(ctx, items);
  return answer(200, slice, headers);
}

/** The page's items and the headers that go with them (for lists GitHub wraps in an object). */
export function pageOf(
  ctx: GitHubContext,
  items: readonly JsonValue[],
): { slice: JsonValue[]; headers: Record<string, string> } {
  const perPage = Math.min(positive(ctx, 'per_page', 30), 100);
  const at = positive(ctx, 'page', 1);
  const last = Math.max(1, Math.ceil(items.length / perPage));
  const slice = items.slice((at - 1) * perPage, at * perPage);
  const url = new URL(ctx.request.url);
  const href = (n: number) => {
    const u = new URL(ctx.base + url.pathname.slice(new URL(ctx.base).pathname.length));
    for (const [k, v] of url.searchParams) if (k !== 'page') u.searchParams.append(k, v);
    u.searchParams.set('page', String(n));
    return `<${u.href}>`;
  };
  const links: string[] = [];
  if (at > 1) links.push(`${href(at - 1)}; rel="prev"`);
  if (at < last) links.push(`${href(at + 1)}; rel="next"`, `${href(last)}; rel="last"`);
  if (at > 1) links.push(`${href(1)}; rel="first"`);
  return { slice, headers: links.length === 0 ? {} : { link: links.join(', ') } };
}
