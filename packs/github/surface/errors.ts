// GitHub's refusals as the REST API answers them: `{message, errors?, documentation_url}` with 401
// (bad or missing credentials), 403 (the credential may not do this), 404 (not found — GitHub's
// answer for what the caller may not see, too) and 422 (Validation Failed, each problem an entry of
// `errors[]` with a resource, a field and a code). @octokit/rest throws these as RequestError.
import { isTwinError, type JsonObject } from '../../../src/index.js';
import type { RenderedError } from '../../../src/host/index.js';
import { isVendorError, VendorError } from '../../kit/errors.js';

/** GitHub's own documentation root: errors point there, as GitHub's do. */
const DOCS = 'https://docs.github.com/rest';

export type ValidationCode =
  'missing' | 'missing_field' | 'invalid' | 'already_exists' | 'unprocessable' | 'custom';

export interface FieldError {
  readonly resource: string;
  /** Absent on a `custom` entry about the whole resource, as GitHub answers one. */
  readonly field?: string;
  readonly code: ValidationCode;
  readonly message?: string;
}

/** A refusal of the surface itself, with GitHub's status and message. */
export class GitHubApiError extends VendorError {
  constructor(
    readonly status: 400 | 401 | 403 | 404 | 405 | 409 | 422,
    message: string,
    readonly errors: readonly FieldError[] = [],
  ) {
    super('github', status === 404 ? 'not_found' : 'invalid_input', `http_${status}`, message, {
      ...(errors[0]?.field === undefined ? {} : { path: errors[0].field }),
    });
    this.name = 'GitHubApiError';
  }
}

export const badCredentials = () => new GitHubApiError(401, 'Bad credentials');
export const requiresAuthentication = () => new GitHubApiError(401, 'Requires authentication');
export const forbidden = (message: string) => new GitHubApiError(403, message);
const notFoundHere = () => new GitHubApiError(404, 'Not Found');
/** GitHub's 422 for a sha or ref that names no commit of the repository (no `errors[]`). */
export const noCommitFound = (ref: string) =>
  new GitHubApiError(422, `No commit found for SHA: ${ref}`);

export function invalidField(
  resource: string,
  field: string,
  code: ValidationCode,
  message?: string,
): GitHubApiError {
  return new GitHubApiError(422, 'Validation Failed', [
    { resource, field, code, ...(message === undefined ? {} : { message }) },
  ]);
}

/** The pack's messages read "github: Validation Failed: title is required". */
function plain(message: string): string {
  return message.replace(/^github: /, '').replace(/^(Validation Failed|Not Found): /, '');
}

function codeOf(message: string): ValidationCode {
  if (/\bis required\b|must name|must not be blank/.test(message)) return 'missing_field';
  if (/already (exists|taken|installed)/.test(message)) return 'already_exists';
  return 'invalid';
}

function body(message: string, errors: readonly FieldError[] = []): JsonObject {
  const out: JsonObject = { message };
  if (errors.length > 0) out.errors = errors.map((e) => ({ ...e }));
  out.documentation_url = DOCS;
  return out;
}

/**
 * A refusal of the pack (or the kernel) as GitHub's: not found → 404, anything else about the input
 * → 422 naming `resource` and the field. Anything that is no refusal is left as it is (a fault).
 */
export function asGitHubError(error: unknown, resource: string): unknown {
  if (error instanceof GitHubApiError) return error;
  if (isVendorError(error)) {
    if (error.kind === 'not_found') return new GitHubApiError(404, 'Not Found');
    const message = plain(error.message);
    if (error.vendorCode === 'custom') {
      const about = error.details?.resource;
      // About one field when the pack names one; about the whole resource otherwise.
      const field = error.path === undefined ? {} : { field: error.path };
      return new GitHubApiError(422, 'Validation Failed', [
        {
          resource: typeof about === 'string' ? about : resource,
          ...field,
          code: 'custom',
          message,
        },
      ]);
    }
    return invalidField(resource, error.path ?? 'base', codeOf(message), message);
  }
  if (isTwinError(error))
    return invalidField(resource, error.path ?? 'base', 'invalid', error.message);
  return error;
}

/** Any refusal in GitHub's envelope; what is no refusal is a 500 that names no internals. */
export function renderGitHubError(error: unknown): RenderedError {
  const refusal = asGitHubError(error, 'Resource');
  if (refusal instanceof GitHubApiError)
    return { status: refusal.status, body: body(plain(refusal.message), refusal.errors) };
  return { status: 500, body: body('The twin failed to answer this request; its log says why.') };
}

export function unknownGitHubRoute(method: string, path: string): RenderedError {
  return {
    status: 404,
    body: body(
      `Not Found (this twin does not serve ${method} ${path}; docs/github-surface.md lists what it serves)`,
    ),
  };
}

/** A request body over the host's cap: 413 in GitHub's envelope, so Octokit's error reads it. */
export function gitHubBodyTooLarge(limit: number): RenderedError {
  return {
    status: 413,
    body: body(`Payload Too Large: request bodies are at most ${limit} bytes on this twin`),
  };
}
