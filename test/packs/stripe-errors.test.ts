// How the Stripe surface renders a refusal: the twin's own trouble as Stripe's api_error with a
// status stripe-node retries, the request's mistakes as invalid_request_error 400.
import { describe, expect, it } from 'vitest';
import { TwinError } from '../../src/errors.js';
import { renderStripeError } from '../../packs/stripe/surface/errors.js';

describe('Stripe error rendering of twin errors', () => {
  it('a busy store or a stopped engine is api_error with its 5xx status; a bad argument is 400', () => {
    const busy = renderStripeError(new TwinError('STORE_BUSY', 'the twin is busy'));
    expect(busy.status).toBe(503);
    expect(busy.headers).toEqual({ 'retry-after': '1' });
    expect(busy.body).toMatchObject({ error: { type: 'api_error', code: 'store_busy' } });
    const stopped = renderStripeError(new TwinError('ENGINE_STOPPED', 'stopped'));
    expect(stopped.status).toBeGreaterThanOrEqual(500);
    expect(stopped.body).toMatchObject({ error: { type: 'api_error' } });
    const bad = renderStripeError(
      new TwinError('INVALID_ARGUMENT', 'limit must be 1 to 100', { path: 'limit' }),
    );
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({
      error: { type: 'invalid_request_error', code: 'invalid_argument', param: 'limit' },
    });
  });
});
