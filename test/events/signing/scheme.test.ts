// The registry, argument validation, and the contract every scheme shares (round trip, header
// casing, refusals with the right code), run across all schemes so none can drift.

import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { TwinError } from '../../../src/errors.js';
import {
  SCHEME_NAMES,
  getScheme,
  isSchemeName,
  type SignRequest,
  type SigningScheme,
} from '../../../src/events/signing/index.js';
import { expectNoSecretIn, expectTwinError, secret } from './support.js';

const T = 1_700_000_000;
const BODY = '{"id":"evt_contract","amount":4200,"note":"naïve"}';

function secretsFor(name: string): [string, string] {
  return name === 'standard-webhooks'
    ? [
        secret(`whsec_${randomBytes(24).toString('base64')}`),
        secret(`whsec_${randomBytes(24).toString('base64')}`),
      ]
    : [secret(`contract-${name}-secret-A`), secret(`contract-${name}-secret-B`)];
}

describe('getScheme', () => {
  it('returns each named scheme', () => {
    for (const name of SCHEME_NAMES) {
      expect(getScheme(name).name).toBe(name);
      expect(isSchemeName(name)).toBe(true);
    }
    expect(isSchemeName('svix')).toBe(false);
  });

  it('refuses an unknown name with INVALID_CONFIG listing the valid ones', () => {
    const err = expectTwinError(() => getScheme('svix'), 'INVALID_CONFIG', 'scheme');
    for (const name of SCHEME_NAMES) expect(err.message).toContain(name);
    expect(err.details).toMatchObject({ validSchemes: [...SCHEME_NAMES] });
  });
});

describe.each(SCHEME_NAMES.map((name) => ({ name, scheme: getScheme(name) })))(
  'contract: $name',
  ({ name, scheme }: { name: string; scheme: SigningScheme }) => {
    const [A, B] = secretsFor(name);
    const timestamped = name !== 'github';
    const base: SignRequest = {
      body: BODY,
      secrets: [A],
      timestampSec: T,
      messageId: 'msg_contract1',
    };
    const headers = scheme.sign(base);
    const verify = (
      h: Record<string, string | undefined>,
      over: { body?: string; secrets?: string[]; now?: number; tolerance?: number } = {},
    ) =>
      scheme.verify({
        headers: h,
        rawBody: over.body ?? BODY,
        secrets: over.secrets ?? [A],
        nowSec: over.now ?? T,
        ...(over.tolerance === undefined ? {} : { toleranceSec: over.tolerance }),
      });

    it('round-trips, whatever the header casing', () => {
      const expected = verify(headers);
      if (timestamped) expect(expected.timestampSec).toBe(T);
      const upper = Object.fromEntries(
        Object.entries(headers).map(([k, v]) => [k.toUpperCase(), v]),
      );
      const lower = Object.fromEntries(
        Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]),
      );
      expect(verify(upper)).toEqual(expected);
      expect(verify(lower)).toEqual(expected);
      expect(
        scheme.verify({
          headers,
          rawBody: new TextEncoder().encode(BODY),
          secrets: [A],
          nowSec: T,
        }),
      ).toEqual(expected);
    });

    it('is deterministic and depends on the body', () => {
      expect(scheme.sign(base)).toEqual(headers);
      expect(scheme.sign({ ...base, body: `${BODY} ` })).not.toEqual(headers);
    });

    it('accepts if any configured secret matches; refuses otherwise', () => {
      expect(() => verify(headers, { secrets: [B, A] })).not.toThrow();
      expectTwinError(() => verify(headers, { secrets: [B] }), 'BAD_SIGNATURE');
    });

    it('refuses a tampered body', () => {
      expectTwinError(
        () => verify(headers, { body: BODY.replace('4200', '4201') }),
        'BAD_SIGNATURE',
      );
    });

    it(
      timestamped
        ? 'refuses old and future timestamps beyond tolerance'
        : 'ignores the clock (no timestamp)',
      () => {
        if (timestamped) {
          expectTwinError(() => verify(headers, { now: T + 301 }), 'STALE_TIMESTAMP');
          expectTwinError(() => verify(headers, { now: T - 301 }), 'STALE_TIMESTAMP');
          expectTwinError(() => verify(headers, { now: T + 11, tolerance: 10 }), 'STALE_TIMESTAMP');
          expect(() => verify(headers, { now: T + 10, tolerance: 10 })).not.toThrow();
        } else {
          expect(() => verify(headers, { now: T + 10 ** 6, tolerance: 0 })).not.toThrow();
        }
      },
    );

    it('a tampered packet is BAD_SIGNATURE even when also stale (MAC is checked first)', () => {
      expectTwinError(
        () => verify(headers, { body: `${BODY}x`, now: T + 10_000 }),
        'BAD_SIGNATURE',
      );
    });

    it('refuses each missing signature header with MISSING_HEADER naming it', () => {
      // GitHub's legacy X-Hub-Signature (sha1) rides along for old receivers; verifiers, GitHub's own
      // included, check X-Hub-Signature-256 alone, so a packet without the legacy header still verifies.
      for (const key of Object.keys(headers).filter(
        (k) => !(name === 'github' && k === 'X-Hub-Signature'),
      )) {
        expectTwinError(
          () => verify({ ...headers, [key]: undefined }),
          'MISSING_HEADER',
          `headers.${key}`,
        );
        expectTwinError(
          () => verify({ ...headers, [key]: '  ' }),
          'MISSING_HEADER',
          `headers.${key}`,
        );
      }
    });

    it('signs: empty secrets, non-integer or negative timestamp, non-string body -> INVALID_ARGUMENT naming the field', () => {
      expectTwinError(() => scheme.sign({ ...base, secrets: [] }), 'INVALID_ARGUMENT', 'secrets');
      expectTwinError(
        () => scheme.sign({ ...base, secrets: [A, ''] }),
        'INVALID_ARGUMENT',
        'secrets[1]',
      );
      expectTwinError(
        () => scheme.sign({ ...base, timestampSec: T + 0.5 }),
        'INVALID_ARGUMENT',
        'timestampSec',
      );
      expectTwinError(
        () => scheme.sign({ ...base, timestampSec: 1_700_000_000.123 }),
        'INVALID_ARGUMENT',
        'timestampSec',
      );
      expectTwinError(
        () => scheme.sign({ ...base, timestampSec: -1 }),
        'INVALID_ARGUMENT',
        'timestampSec',
      );
      expectTwinError(
        () => scheme.sign({ ...base, timestampSec: Number.NaN }),
        'INVALID_ARGUMENT',
        'timestampSec',
      );
      expectTwinError(
        () => scheme.sign({ ...base, body: { id: 1 } as unknown as string }),
        'INVALID_ARGUMENT',
        'body',
      );
    });

    it('verifies: empty secrets, bad clock or tolerance, parsed body -> INVALID_ARGUMENT naming the field', () => {
      expectTwinError(() => verify(headers, { secrets: [] }), 'INVALID_ARGUMENT', 'secrets');
      expectTwinError(() => verify(headers, { now: Number.NaN }), 'INVALID_ARGUMENT', 'nowSec');
      expectTwinError(() => verify(headers, { tolerance: -1 }), 'INVALID_ARGUMENT', 'toleranceSec');
      expectTwinError(
        () =>
          scheme.verify({ headers, rawBody: JSON.parse(BODY) as string, secrets: [A], nowSec: T }),
        'INVALID_ARGUMENT',
        'rawBody',
      );
    });

    it('never puts a secret into any refusal', () => {
      const attempts: Array<() => unknown> = [
        () => verify(headers, { secrets: [B] }),
        () => verify(headers, { body: 'x', secrets: [B, A] }),
        ...(timestamped ? [() => verify(headers, { now: T + 9999 })] : []),
        () => verify({}, { secrets: [A, B] }),
        () => scheme.sign({ ...base, secrets: [A, B, ' '] }),
        () => scheme.sign({ ...base, secrets: [A], timestampSec: 1.5 }),
      ];
      for (const attempt of attempts) {
        try {
          attempt();
          expect.unreachable('should have thrown');
        } catch (err) {
          expect(err).toBeInstanceOf(TwinError);
          expectNoSecretIn(err as TwinError);
          for (const s of [A, B]) expect((err as Error).message).not.toContain(s);
        }
      }
    });
  },
);
