// Dispatch options in the serve configuration: a route may defer its trigger's runs; every mistake
// is an INVALID_CONFIG naming the option, before any world is opened.
import { describe, expect, it } from 'vitest';
import { validateServeConfig } from '../../../src/host/serve/config.js';
import { expectRefusal } from '../support.js';

const env = { STRIPE_SECRET: 'whsec_serveConfigSecret000000000000001' };
const config = (dispatch: unknown) => ({
  tenants: [{ id: 'acme', endpoints: [{ provider: 'stripe', secretEnv: 'STRIPE_SECRET' }] }],
  routes: [{ triggerId: 'stripe.webhook', dispatch }],
});

describe('dispatch options in the serve configuration', () => {
  it('keeps a route’s options, and leaves routes without them unchanged', () => {
    const dispatch = {
      debounce: { key: 'payload.body.data.object.id', period: 5000, maxWait: 60000 },
      concurrency: { limit: 2 },
      ttl: 3_600_000,
    };
    expect(validateServeConfig(config(dispatch), env).routes).toEqual([
      { triggerId: 'stripe.webhook', routine: 'record', eventTypes: null, dispatch },
    ]);
    const plain = validateServeConfig(
      { tenants: config(undefined).tenants, routes: [{ triggerId: 'stripe.webhook' }] },
      env,
    );
    expect(plain.routes).toEqual([
      { triggerId: 'stripe.webhook', routine: 'record', eventTypes: null },
    ]);
  });

  for (const [dispatch, path] of [
    [{}, 'routes[0].dispatch'],
    [{ delay: 'soon' }, 'routes[0].dispatch.delay'],
    [{ debounce: { key: 'payload.id' } }, 'routes[0].dispatch.debounce.period'],
    [{ concurrency: { limit: 2, onLimit: 'wait' } }, 'routes[0].dispatch.concurrency.onLimit'],
    [{ ttl: -1 }, 'routes[0].dispatch.ttl'],
    [{ retry: 3 }, 'routes[0].dispatch.retry'],
  ] as const)
    it(`refuses ${JSON.stringify(dispatch)} naming ${path}`, async () => {
      const error = await expectRefusal(
        () => validateServeConfig(config(dispatch), env),
        'INVALID_CONFIG',
        path,
      );
      expect(error.message).toContain(path);
    });
});
