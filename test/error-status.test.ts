// A host answers each error with the catalog's status. A request the caller can fix must not look
// like a server fault (senders and SDKs retry 5xx), and a busy store must look retryable.
import { expect, it } from 'vitest';
import { ERROR_CATALOG, errorHttpStatus } from '../src/error-catalog.js';
import type { TwinErrorCode } from '../src/errors.js';

const CALLERS: TwinErrorCode[] = [
  'INVALID_WRITE',
  'INVALID_ARGUMENT',
  'INVALID_OPTIONS',
  'INVALID_CONFIG',
  'UNKNOWN_TWIN',
  'UNKNOWN_DELIVERY',
  'UNKNOWN_PACK',
  'UNKNOWN_EVENT_TYPE',
  'UNKNOWN_ROUTINE',
  'NOT_CLAIMABLE',
  'DISPATCH_NOT_CANCELLABLE',
  'TENANT_MISMATCH',
  'PAYLOAD_TOO_LARGE',
];

it('refusals of the request itself are 4xx', () => {
  for (const code of CALLERS)
    expect([code, errorHttpStatus(code)]).toEqual([code, expect.any(Number)]);
  const wrong = CALLERS.filter(
    (code) => errorHttpStatus(code) < 400 || errorHttpStatus(code) >= 500,
  );
  expect(wrong).toEqual([]);
});

it('a busy or closed store is 503, so a client retries', () => {
  for (const code of ['STORE_BUSY', 'STORE_UNREACHABLE', 'WORLD_CLOSED'] as const)
    expect(errorHttpStatus(code)).toBe(503);
});

it('a code outside the catalog is 500', () => {
  expect(errorHttpStatus('NOT_A_CODE' as TwinErrorCode)).toBe(500);
  expect(
    Object.values(ERROR_CATALOG).every((entry) => entry.status >= 400 && entry.status < 600),
  ).toBe(true);
});
