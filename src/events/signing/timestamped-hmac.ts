// The shape of Slack's scheme (and of any like it): a timestamp header, and a signature
// header `<prefix><hex HMAC over the timestamp and body>`.
import {
  anyMatch,
  badSignature,
  checkFreshness,
  checkSignRequest,
  checkVerifyRequest,
  headerValues,
  missingHeader,
  parseTimestampHeader,
  singleHeader,
  type SchemeName,
  type SigningScheme,
} from './scheme.js';

export interface TimestampedHmac {
  readonly name: SchemeName;
  readonly signatureHeader: string;
  readonly timestampHeader: string;
  /** What every signature starts with, e.g. "v0=". */
  readonly prefix: string;
  /** The whole signature value for one secret, the timestamp exactly as it appears in the header. */
  readonly signature: (secret: string, timestamp: string, body: string | Uint8Array) => string;
}

export function timestampedHmacScheme(spec: TimestampedHmac): SigningScheme {
  const { name, signatureHeader: SIGNATURE, timestampHeader: TIMESTAMP } = spec;
  return {
    name,
    sign(req) {
      checkSignRequest(name, req);
      const ts = String(req.timestampSec);
      return {
        [SIGNATURE]: spec.signature(req.secrets[0] as string, ts, req.body),
        [TIMESTAMP]: ts,
      };
    },
    verify(req) {
      const { rawBody, secrets, nowSec, toleranceSec } = checkVerifyRequest(name, req);
      const signatures = headerValues(req.headers, SIGNATURE).map((v) => v.trim());
      if (signatures.length === 0) throw missingHeader(name, SIGNATURE);
      const ts = singleHeader(name, req.headers, TIMESTAMP);
      const timestampSec = parseTimestampHeader(name, TIMESTAMP, ts);
      if (!signatures.some((s) => s.startsWith(spec.prefix))) {
        throw badSignature(name, SIGNATURE, `${SIGNATURE} must look like ${spec.prefix}<hex>.`);
      }
      const expected = secrets.map((secret) => spec.signature(secret, ts, rawBody));
      if (!anyMatch(expected, signatures)) {
        throw badSignature(
          name,
          SIGNATURE,
          `${SIGNATURE} does not match the timestamp and body under any configured secret.`,
        );
      }
      checkFreshness(name, TIMESTAMP, timestampSec, nowSec, toleranceSec);
      return { timestampSec };
    },
  };
}
