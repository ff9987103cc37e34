// GitHub's webhook signature (`X-Hub-Signature-256: sha256=<hex>` over the body alone), so twin
// deliveries pass @octokit/webhooks-methods, and beside it the legacy `X-Hub-Signature:
// sha1=<hex>` GitHub still sends whenever a hook has a secret. GitHub signs no timestamp, so
// there is no replay window to check; dedupe on X-GitHub-Delivery is the receiver's job.
import { createHmac } from 'node:crypto';

import {
  anyMatch,
  badSignature,
  checkSignRequest,
  checkVerifyRequest,
  headerValues,
  hmacSha256,
  missingHeader,
  type SignRequest,
  type SigningScheme,
  type VerifiedPacket,
  type VerifyRequest,
} from './scheme.js';

const HEADER = 'X-Hub-Signature-256';
const LEGACY_HEADER = 'X-Hub-Signature';

function githubSignature(secret: string, body: string | Uint8Array): string {
  return `sha256=${hmacSha256(secret, body).toString('hex')}`;
}

export const githubScheme: SigningScheme = {
  name: 'github',

  sign(req: SignRequest): Record<string, string> {
    checkSignRequest('github', req);
    const secret = req.secrets[0] as string;
    return {
      [LEGACY_HEADER]: `sha1=${createHmac('sha1', secret).update(req.body).digest('hex')}`,
      [HEADER]: githubSignature(secret, req.body),
    };
  },

  verify(req: VerifyRequest): VerifiedPacket {
    // nowSec and toleranceSec are still validated so a misconfigured caller fails the same way
    // for every scheme, but they play no part here.
    const { rawBody, secrets } = checkVerifyRequest('github', req);
    const values = headerValues(req.headers, HEADER).map((v) => v.trim());
    if (values.length === 0) throw missingHeader('github', HEADER);
    if (!values.some((v) => v.startsWith('sha256='))) {
      throw badSignature('github', HEADER, `${HEADER} must look like sha256=<hex>.`);
    }
    const expected = secrets.map((secret) => githubSignature(secret, rawBody));
    if (!anyMatch(expected, values)) {
      throw badSignature(
        'github',
        HEADER,
        `${HEADER} does not match the body under any configured secret.`,
      );
    }
    // No signed timestamp or id exists, so nothing verified is returned.
    return {};
  },
};
