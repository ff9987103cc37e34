// The trigger guide's configuration keys: `kind: 'cron'` on a calendar subscription and
// `signatureScheme` on a webhook endpoint, accepted beside ours (in the library and in
// serve.json), each refused with the key's path when its value is wrong.
import { describe, expect, it } from 'vitest';
import { validateSubscription } from '../../src/triggers/calendar/subscription.js';
import { validateServeConfig } from '../../src/host/serve/config.js';
import {
  WebhookIngress,
  type WebhookEndpoint,
} from '../../src/triggers/webhook/webhook-ingress.js';
import { expectRefusal } from './support.js';

const SUB = { tenantId: 'acme', triggerId: 'nightly', cron: '0 7 * * *', timezone: 'Asia/Tokyo' };
const secrets = () => ['s3cret-value-000000000001'];

describe("calendar async kind: 'cron'", async () => {
  it('is accepted and not stored: every calendar is a cron calendar', () => {
    const valid = validateSubscription({ ...SUB, kind: 'cron' });
    expect(valid).toEqual(validateSubscription(SUB));
    expect(valid).not.toHaveProperty('kind');
  });

  it('any other kind is refused at kind', async () => {
    const e = await expectRefusal(
      () => validateSubscription({ ...SUB, kind: 'interval' }),
      'INVALID_CONFIG',
      'kind',
    );
    expect(e.message).toContain("'cron'");
    await expectRefusal(
      () => validateSubscription({ ...SUB, kind: null }),
      'INVALID_CONFIG',
      'kind',
    );
  });
});

describe('webhook endpoint signatureScheme', () => {
  const endpoint = (keys: Record<string, unknown>) =>
    ({
      provider: 'stripe',
      triggerId: 'stripe.events',
      resolveSecrets: secrets,
      ...keys,
    }) as unknown as WebhookEndpoint;

  it('names the scheme as scheme does; giving both is fine when they agree', () => {
    expect(
      new WebhookIngress({ endpoints: [endpoint({ signatureScheme: 'stripe' })] }).endpointFor(
        'acme',
        'stripe',
      )!.scheme,
    ).toBe('stripe');
    expect(
      new WebhookIngress({
        endpoints: [endpoint({ scheme: 'github', signatureScheme: 'github' })],
      }).endpointFor('acme', 'stripe')!.scheme,
    ).toBe('github');
  });

  it('refuses a disagreement, an unknown scheme and a missing one, naming the key', async () => {
    await expectRefusal(
      () =>
        new WebhookIngress({
          endpoints: [endpoint({ scheme: 'stripe', signatureScheme: 'github' })],
        }),
      'INVALID_CONFIG',
      'endpoints[0].signatureScheme',
    );
    await expectRefusal(
      () => new WebhookIngress({ endpoints: [endpoint({ signatureScheme: 'paypal' })] }),
      'INVALID_CONFIG',
      'endpoints[0].signatureScheme',
    );
    await expectRefusal(
      () => new WebhookIngress({ endpoints: [endpoint({})] }),
      'INVALID_CONFIG',
      'endpoints[0].scheme',
    );
  });
});

describe('serve.json takes the same keys', () => {
  const config = (endpoint: Record<string, unknown>, calendar: Record<string, unknown> = {}) => ({
    tenants: [
      {
        id: 'acme',
        endpoints: [{ provider: 'gh', secretEnv: 'GH_SECRET', ...endpoint }],
        calendars: [{ triggerId: 'nightly', cron: '0 3 * * *', timezone: 'UTC', ...calendar }],
      },
    ],
    routes: [],
  });
  const env = { GH_SECRET: 'gh-secret-0000000000001' };

  it('signatureScheme on an endpoint and kind on a calendar', () => {
    const c = validateServeConfig(config({ signatureScheme: 'github' }, { kind: 'cron' }), env);
    expect(c.tenants[0]!.endpoints[0]!.scheme).toBe('github');
    expect(c.tenants[0]!.calendars[0]).not.toHaveProperty('kind');
  });

  it('refuses them with the path of the offending key', async () => {
    await expectRefusal(
      () => validateServeConfig(config({ scheme: 'github', signatureScheme: 'slack' }), env),
      'INVALID_CONFIG',
      'tenants[0].endpoints[0].signatureScheme',
    );
    await expectRefusal(
      () => validateServeConfig(config({}), env),
      'INVALID_CONFIG',
      'tenants[0].endpoints[0].scheme',
    );
    await expectRefusal(
      () => validateServeConfig(config({ scheme: 'github' }, { kind: 'rrule' }), env),
      'INVALID_CONFIG',
      'tenants[0].calendars[0].kind',
    );
  });
});
