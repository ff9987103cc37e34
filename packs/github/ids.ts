// GitHub-shaped ids and timestamps: integer ids, base64-looking node ids (R_kgDO…), 40-hex
// commit shas, ISO 8601 times without milliseconds — all from the world's id source and clock.
import type { IdSource } from '../../src/index.js';
import { hexToken, numericId } from '../kit/ids.js';
import type { IdShapes } from '../kit/vendor-pack.js';

export const githubIds = {
  numeric: numericId,
  /** New-style global node ids: a type prefix (U, O, R, I, PR, IC, CR, CS, WFR, W, RE, A, MDQ…), then kgDO/kwDO and base62. */
  node: (ids: IdSource, prefix: string) =>
    `${prefix}_${prefix === 'U' || prefix === 'O' || prefix === 'R' || prefix === 'A' ? 'kgDO' : 'kwDO'}${ids.vendorId('', 12)}`,
  sha: (ids: IdSource) => hexToken(ids, 20),
};

export function githubTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

const INT = /^[1-9][0-9]{8}$/;
export const githubIdShapes: IdShapes = {
  eventId: /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
  // X-GitHub-Delivery: a GUID, the same on every redelivery.
  messageId: /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
  resources: {
    user: INT,
    organization: INT,
    repository: INT,
    repository_hook: INT,
    organization_hook: INT,
    issue: /^[1-9][0-9]{8}#[1-9][0-9]*$/,
    pull_request: /^[1-9][0-9]{8}#[1-9][0-9]*$/,
    branch: /^[1-9][0-9]{8}:[^\s:]+$/,
    issue_comment: INT,
    app: INT,
    installation: INT,
    check_suite: INT,
    check_run: INT,
    workflow: /^[1-9][0-9]{8}:\.github\/workflows\/[^/]+\.ya?ml$/,
    workflow_run: INT,
    release: INT,
    star: /^[1-9][0-9]{8}:[1-9][0-9]{8}$/,
  },
};
