// Every scheme refuses a malformed call to sign() or verify() the same way: INVALID_ARGUMENT naming
// the field, and a message prefixed with the scheme that says what was passed instead (its type,
// or the number) — never a TypeError from deep inside. Then the shared header and timestamp
// handling every scheme relies on: non-string header values count as absent, repeated values that
// differ only by whitespace are one value, and a timestamp refusal says which way it is off.
import { describe, expect, it } from 'vitest';
import {
  SCHEME_NAMES,
  getScheme,
  slackScheme,
  type SignRequest,
  type VerifyRequest,
} from '../../../src/events/signing/index.js';
import { expectTwinError, secret } from './support.js';

const T = 1_760_000_000;
const BODY = '{"id":"evt_arguments"}';
const junk = <T>(value: unknown) => value as T;

describe.each(SCHEME_NAMES.map((name) => ({ name, scheme: getScheme(name) })))(
  'arguments: $name',
  ({ name, scheme }) => {
    const A =
      name === 'standard-webhooks'
        ? secret(`whsec_${Buffer.from(`arguments-key-${name}-0001`).toString('base64')}`)
        : secret(`arguments-${name}-secret-0001`);
    const base: SignRequest = { body: BODY, secrets: [A], timestampSec: T, messageId: 'msg_args1' };
    const headers = scheme.sign(base);
    const baseVerify: VerifyRequest = { headers, rawBody: BODY, secrets: [A], nowSec: T };
    const signError = (over: Partial<SignRequest> | null | string, path: string) =>
      expectTwinError(
        () =>
          scheme.sign(
            over === null || typeof over === 'string' ? junk(over) : { ...base, ...over },
          ),
        'INVALID_ARGUMENT',
        path,
      ).message;
    const verifyError = (over: Partial<VerifyRequest> | null | string, path: string) =>
      expectTwinError(
        () =>
          scheme.verify(
            over === null || typeof over === 'string' ? junk(over) : { ...baseVerify, ...over },
          ),
        'INVALID_ARGUMENT',
        path,
      ).message;

    it('sign() without a request object', () => {
      for (const req of [null, 'body']) {
        expect(signError(req, '')).toBe(`${name}: sign() needs a request object.`);
      }
    });

    it('verify() without a request object', () => {
      for (const req of [null, 'body']) {
        expect(verifyError(req, '')).toBe(`${name}: verify() needs a request object.`);
      }
    });

    it('secrets that are not an array, or hold a non-string or a blank', () => {
      const notArray = `${name}: secrets must be an array of strings.`;
      expect(signError({ secrets: junk(A) }, 'secrets')).toBe(notArray);
      expect(verifyError({ secrets: junk({ 0: A, length: 1 }) }, 'secrets')).toBe(notArray);
      for (const [value, type] of [
        [42, 'number'],
        [null, 'null'],
        [[A], 'array'],
        [{}, 'object'],
      ] as const) {
        expect(signError({ secrets: junk([A, value]) }, 'secrets[1]')).toBe(
          `${name}: secrets[1] must be a string, got ${type}.`,
        );
      }
      expect(verifyError({ secrets: [A, ' \t'] }, 'secrets[1]')).toBe(
        `${name}: secrets[1] is empty or only whitespace.`,
      );
    });

    it('a timestamp that is not a non-negative integer, saying what it got', () => {
      for (const [value, got] of [
        [1.5, '1.5'],
        [-1, '-1'],
        [Number.NaN, 'NaN'],
        [String(T), 'string'],
        [null, 'null'],
      ] as const) {
        expect(signError({ timestampSec: junk(value) }, 'timestampSec')).toBe(
          `${name}: timestampSec must be a non-negative integer number of seconds since the epoch, got ${got}.`,
        );
      }
    });

    it('a message id that is not a string', () => {
      expect(signError({ messageId: junk(42) }, 'messageId')).toBe(
        `${name}: messageId must be a string, got number.`,
      );
    });

    it('headers that are not an object', () => {
      for (const value of [null, 'X-Signature: v1']) {
        expect(verifyError({ headers: junk(value) }, 'headers')).toBe(
          `${name}: headers must be an object of header name to value.`,
        );
      }
    });

    it('a body that is neither a string nor bytes', () => {
      for (const [value, type] of [
        [JSON.parse(BODY), 'object'],
        [null, 'null'],
        [[1, 2], 'array'],
      ] as const) {
        expect(verifyError({ rawBody: junk(value) }, 'rawBody')).toBe(
          `${name}: rawBody must be the received bytes as a string or Uint8Array, got ${type}; a parsed object cannot be verified.`,
        );
      }
    });

    it('a clock or tolerance that is not a finite number, saying what it got', () => {
      expect(verifyError({ nowSec: junk(String(T)) }, 'nowSec')).toBe(
        `${name}: nowSec must be a finite number of seconds since the epoch, got string.`,
      );
      for (const [value, got] of [
        [-1, '-1'],
        [Number.NaN, 'NaN'],
        [Number.POSITIVE_INFINITY, 'Infinity'],
        ['5', 'string'],
      ] as const) {
        expect(verifyError({ toleranceSec: junk(value) }, 'toleranceSec')).toBe(
          `${name}: toleranceSec must be a non-negative finite number of seconds, got ${got}.`,
        );
      }
    });

    it('a header value that is not a string counts as absent', () => {
      // GitHub's legacy sha1 header rides along but is not verified (see scheme.test.ts).
      const checked = Object.entries(headers).filter(([k]) => k !== 'X-Hub-Signature');
      for (const [key, value] of checked) {
        for (const odd of [null, 42]) {
          expect(() =>
            scheme.verify({ ...baseVerify, headers: { ...headers, [key]: junk(odd) } }),
          ).toThrow(expect.objectContaining({ code: 'MISSING_HEADER' }));
        }
        // The packet itself is unharmed by an odd extra value beside the real one.
        expect(
          scheme.verify({ ...baseVerify, headers: { ...headers, [key]: junk([null, value]) } }),
        ).toEqual(scheme.verify(baseVerify));
      }
    });
  },
);

describe('shared header and timestamp handling (through slack)', () => {
  const SECRET = secret('scheme-arguments-slack-secret-01');
  const headers = slackScheme.sign({
    body: BODY,
    secrets: [SECRET],
    timestampSec: T,
    messageId: '',
  });
  const verify = (h: Record<string, string | string[]>, nowSec = T) =>
    slackScheme.verify({ headers: h, rawBody: BODY, secrets: [SECRET], nowSec });

  it('a repeated header whose values differ only by surrounding whitespace is one value', () => {
    expect(verify({ ...headers, 'X-Slack-Request-Timestamp': [String(T), ` ${T} `] })).toEqual({
      timestampSec: T,
    });
  });

  it('a malformed timestamp is quoted, cut to its first 40 characters', () => {
    const long = `${'9'.repeat(20)}x${'8'.repeat(60)}`;
    expect(
      expectTwinError(
        () => verify({ ...headers, 'X-Slack-Request-Timestamp': long }),
        'BAD_SIGNATURE',
        'headers.X-Slack-Request-Timestamp',
      ).message,
    ).toBe(
      `slack: header X-Slack-Request-Timestamp must be integer Unix seconds, got ${JSON.stringify(long.slice(0, 40))}.`,
    );
  });

  it('a stale or future timestamp says how far and which way, with the numbers as details', () => {
    const old = expectTwinError(() => verify(headers, T + 301), 'STALE_TIMESTAMP');
    expect(old.message).toBe(`slack: signed timestamp ${T} is 301 s old; the tolerance is 300 s.`);
    expect(old.details).toEqual({ timestampSec: T, nowSec: T + 301, toleranceSec: 300 });
    const future = expectTwinError(
      () => verify(headers, T - 450),
      'STALE_TIMESTAMP',
      'headers.X-Slack-Request-Timestamp',
    );
    expect(future.message).toBe(
      `slack: signed timestamp ${T} is 450 s in the future; the tolerance is 300 s.`,
    );
    expect(future.details).toEqual({ timestampSec: T, nowSec: T - 450, toleranceSec: 300 });
  });
});
