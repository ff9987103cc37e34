// One GitHub route as data: the generic route plus what GitHub's handlers share — the pack's twin,
// the caller, the REST base the answer's URLs go on (records keep GitHub's own URLs; the answer is
// rebased on the way out), and the first write of a host recording that base for webhook payloads.
import type { JsonObject, JsonValue, ReadView, Twin } from '../../../src/index.js';
import {
  answer,
  type HttpMethod,
  type Route,
  type RouteAnswer,
  type RouteContext,
} from '../../../src/host/index.js';
import type { GitHubUser } from '../accounts.js';
import { rebase, setGitHubOrigin } from '../origin.js';
import { findRepository, type GitHubRepository } from '../repositories.js';
import {
  asGitHubError,
  forbidden,
  GitHubApiError,
  invalidField,
  requiresAuthentication,
} from './errors.js';
import type { GitHubPrincipal } from './principal.js';

/** Where the surface is mounted: Octokit's `baseUrl` is the host's origin plus this. */
export const GITHUB_PREFIX = '/github';

export interface GitHubContext {
  readonly twin: Twin;
  readonly principal: GitHubPrincipal;
  readonly params: Readonly<Record<string, string>>;
  readonly input: JsonObject;
  /** The REST base on the twin's origin (`http://127.0.0.1:N/github`). */
  readonly base: string;
  readonly request: Request;
}

export interface GitHubRouteSpec {
  readonly method: HttpMethod;
  /** GitHub's path, as Octokit's endpoint table writes it with `:name` for `{name}`. */
  readonly path: string;
  readonly sdk: string;
  readonly kind: 'read' | 'write';
  readonly events?: readonly string[];
  /** The object a 422's `errors[].resource` names. */
  readonly resource?: string;
  readonly handle: (ctx: GitHubContext) => Promise<RouteAnswer> | RouteAnswer;
}

function isAnswer(a: RouteAnswer): a is Extract<RouteAnswer, { answer: true }> {
  return a !== null && typeof a === 'object' && !Array.isArray(a) && 'answer' in a;
}

export function githubRoute(
  spec: GitHubRouteSpec,
  recorded: { base?: string },
): Route<GitHubPrincipal> {
  return {
    method: spec.method,
    path: GITHUB_PREFIX + spec.path,
    sdk: spec.sdk,
    kind: spec.kind,
    ...(spec.events === undefined ? {} : { events: spec.events }),
    async handle(ctx: RouteContext<GitHubPrincipal>) {
      const base = ctx.origin + GITHUB_PREFIX;
      const twin = ctx.principal.twin;
      try {
        if (spec.kind === 'write' && recorded.base !== base) {
          await setGitHubOrigin(twin, base);
          recorded.base = base;
        }
        const a = await spec.handle({
          twin,
          principal: ctx.principal,
          params: ctx.params,
          input: ctx.input,
          base,
          request: ctx.request,
        });
        return isAnswer(a)
          ? answer(a.status, rebase(a.body, base), a.headers)
          : rebase(a as JsonValue, base);
      } catch (error) {
        throw asGitHubError(error, spec.resource ?? 'Resource');
      }
    },
  };
}

/** The acting user: a user token is required (an App or an anonymous caller is refused). */
export function userOf(ctx: GitHubContext): GitHubUser {
  const p = ctx.principal;
  if (p.kind === 'user') return p.user;
  if (p.kind === 'anonymous') throw requiresAuthentication();
  throw forbidden('Resource not accessible by integration (this twin acts here as a user only)');
}

/**
 * The repository `:owner/:repo`, as the caller may see it: anyone a public one; a private one its
 * owner (or an installation on it). What the caller may not see is GitHub's 404.
 */
function visibleRepo(view: ReadView, ctx: GitHubContext): GitHubRepository {
  const repo = findRepository(view, `${ctx.params.owner}/${ctx.params.repo}`);
  const p = ctx.principal;
  if (p.kind === 'installation') {
    const inst = p.installation;
    const covered =
      repo.owner.id === inst.account.id &&
      (inst.repository_selection === 'all' || inst.repository_ids.includes(repo.id));
    if (!covered) throw new GitHubApiError(404, 'Not Found');
    return repo;
  }
  if (repo.private && !(p.kind === 'user' && p.user.id === repo.owner.id))
    throw new GitHubApiError(404, 'Not Found');
  return repo;
}

/** The visible repository (see visibleRepo), in a read of its own. */
export function repoOf(ctx: GitHubContext): Promise<GitHubRepository> {
  return ctx.twin.read((view) => visibleRepo(view, ctx));
}

/** One read that finds the visible repository and goes on with it: one store round trip. */
export function withRepo<T>(
  ctx: GitHubContext,
  fn: (view: ReadView, repo: GitHubRepository) => T,
): Promise<T> {
  return ctx.twin.read((view) => fn(view, visibleRepo(view, ctx)));
}

/** A required string field of the body. */
export function text(input: JsonObject, field: string, resource: string): string {
  const v = input[field];
  if (v === undefined || v === null) throw invalidField(resource, field, 'missing_field');
  if (typeof v !== 'string')
    throw invalidField(resource, field, 'invalid', `${field} must be a string`);
  return v;
}

/** An optional string field (null counts as given: GitHub's "unset"). */
export function optionalText(
  input: JsonObject,
  field: string,
  resource: string,
): string | undefined {
  const v = input[field];
  if (v === undefined) return undefined;
  if (typeof v !== 'string')
    throw invalidField(resource, field, 'invalid', `${field} must be a string`);
  return v;
}

/** `:number` of the path as a positive integer, or GitHub's 404. */
export function numberParam(ctx: GitHubContext, name: string): number {
  const n = Number(ctx.params[name]);
  if (!Number.isInteger(n) || n < 1) throw new GitHubApiError(404, 'Not Found');
  return n;
}

/**
 * `since` of a list: only what was last updated at or after that instant (an ISO 8601 time,
 * `YYYY-MM-DDTHH:MM:SSZ`), as the seconds-precise `updated_at` of the answers reads; anything else
 * is 422 invalid on `since`.
 */
export function sinceParam(ctx: GitHubContext, resource: string): string | undefined {
  const raw = ctx.input.since;
  if (raw === undefined || raw === '') return undefined;
  // A time without a zone is UTC, as GitHub reads it, never the host's own zone.
  const zoned =
    typeof raw === 'string' && /T\d\d:\d\d(:\d\d(\.\d+)?)?$/.test(raw) ? `${raw}Z` : raw;
  const at = typeof zoned === 'string' ? Date.parse(zoned) : Number.NaN;
  if (Number.isNaN(at))
    throw invalidField(
      resource,
      'since',
      'invalid',
      'since must be an ISO 8601 time, YYYY-MM-DDTHH:MM:SSZ',
    );
  return new Date(at).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/**
 * A parameter that takes one of a few words (`sort`, `direction`, `state`…): absent or "" is
 * `fallback`, anything outside `allowed` is 422 invalid on that field, naming the words.
 */
export function choiceParam<T extends string>(
  input: JsonObject,
  resource: string,
  field: string,
  allowed: readonly T[],
  fallback?: T,
): T | undefined {
  const v = input[field];
  if (v === undefined || v === '') return fallback;
  if (typeof v !== 'string' || !(allowed as readonly string[]).includes(v))
    throw invalidField(resource, field, 'invalid', `${field} must be one of ${allowed.join(', ')}`);
  return v as T;
}

/** `direction` (asc or desc, `fallback` when absent) as `desc`. */
export function descending(input: JsonObject, resource: string, fallback: 'asc' | 'desc'): boolean {
  return choiceParam(input, resource, 'direction', ['asc', 'desc'], fallback) === 'desc';
}
