// The webhook ingress source with packets made by the vendors' own libraries (stripe-node,
// standardwebhooks, svix, @octokit/webhooks-methods, Slack's documented v0 scheme) and by our
// own signing schemes: verified on raw bytes against the world clock, deduped on the vendor's
// delivery id, refusals counted without the body, secrets never stored.
import { createHash, createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { getScheme } from '../../src/events/signing/index.js';
import type { World } from '../../src/world/world.js';
import { RECEIPT_TYPE, recordId, type ReceiptFields } from '../../src/triggers/trigger-records.js';
import { REFUSALS_TYPE, type RefusalWindowFields } from '../../src/triggers/refusal-windows.js';
import { WebhookIngress } from '../../src/triggers/webhook/webhook-ingress.js';
import {
  githubPacket,
  ingressHarness,
  NOW,
  ownPacket,
  SECRETS,
  slackPacket,
  stdPacket,
  stripePacket,
  T,
  type IngressHarness,
} from './packets.js';
import { collect, expectRefusal } from './support.js';

const STRIPE_BODY = JSON.stringify({
  id: 'evt_1Ingress',
  object: 'event',
  type: 'customer.created',
  created: T - 5,
  data: { object: { id: 'cus_1', email: 'ada@example.com' } },
});
const GITHUB_BODY = JSON.stringify({ action: 'opened', issue: { number: 7, title: 'Bug' } });
const SLACK_BODY = JSON.stringify({
  type: 'event_callback',
  team_id: 'T0TWIN001',
  event_id: 'Ev0TWIN0001',
  event_time: T - 2,
  event: { type: 'app_mention', text: '<@U0BOT> hi' },
});
const STD_BODY = JSON.stringify({
  type: 'invoice.paid',
  timestamp: NOW,
  data: { invoice: 'inv_1' },
});
const HMAC_BODY = JSON.stringify({ type: 'thing.happened', n: 1 });

async function exported(world: World): Promise<string> {
  return (await collect(world.twin('triggers').exportLines())).join('\n');
}

async function receipts(world: World): Promise<ReceiptFields[]> {
  return (await world.twin('triggers').list(RECEIPT_TYPE)).map(
    (r) => r.fields as unknown as ReceiptFields,
  );
}

async function refusalWindows(world: World): Promise<RefusalWindowFields[]> {
  return (await world.twin('triggers').list(REFUSALS_TYPE)).map(
    (r) => r.fields as unknown as RefusalWindowFields,
  );
}

describe('accepted packets, from the vendors’ own libraries', () => {
  it('stripe (stripe-node generateTestHeaderString): event id from the body; a re-signed retry is a duplicate', async () => {
    const h = await ingressHarness();
    const answer = await h.ingress.handle({
      tenantId: 'acme',
      scopeId: 'acme',
      provider: 'stripe',
      headers: stripePacket(STRIPE_BODY),
      rawBody: Buffer.from(STRIPE_BODY),
    });
    expect(answer).toMatchObject({
      status: 'triggered',
      dedupeKey: 'stripe:evt_1Ingress',
      triggerId: 'stripe.events',
      scheduledAt: NOW,
    });
    expect(h.received).toEqual([
      {
        triggerId: 'stripe.events',
        input: { eventType: 'customer.created', body: JSON.parse(STRIPE_BODY) },
      },
    ]);
    const env = (await h.engine.record('acme', 'stripe:evt_1Ingress'))!.envelope;
    expect(env).toMatchObject({
      source: { kind: 'webhook', provider: 'stripe' },
      eventId: 'evt_1Ingress',
      occurredAt: new Date((T - 5) * 1000).toISOString(),
      scopeId: 'acme',
    });
    expect(h.resolved).toEqual([['acme', 'acme']]);
    // Stripe re-signs every retry with a new timestamp; the event id makes it the same event
    await h.clock.advance(90_000);
    const retry = await h.ingress.handle({
      tenantId: 'acme',
      scopeId: 'acme',
      provider: 'stripe',
      headers: stripePacket(STRIPE_BODY, T + 90),
      rawBody: STRIPE_BODY,
    });
    expect(retry).toMatchObject({ status: 'duplicate', original: 'triggered', scheduledAt: NOW });
    expect(h.received).toHaveLength(1);
    await h.world.close();
  });

  it("the sender's W3C traceparent is carried into the routine it triggers", async () => {
    const h = await ingressHarness();
    const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    await h.ingress.handle({
      tenantId: 'acme',
      scopeId: 'acme',
      provider: 'stripe',
      headers: { ...stripePacket(STRIPE_BODY), Traceparent: traceparent },
      rawBody: STRIPE_BODY,
    });
    const other = STRIPE_BODY.replace('evt_1Ingress', 'evt_2Ingress');
    await h.ingress.handle({
      tenantId: 'acme',
      scopeId: 'acme',
      provider: 'stripe',
      headers: stripePacket(other),
      rawBody: other,
    });
    expect(h.traces).toEqual([traceparent, null]);
    await h.world.close();
  });

  it('stripe: a packet signed with the previous secret still verifies while it rotates', async () => {
    const h = await ingressHarness();
    expect(
      (
        await h.ingress.handle({
          tenantId: 'acme',
          scopeId: 'acme',
          provider: 'stripe',
          headers: stripePacket(STRIPE_BODY, T, SECRETS.stripeOld),
          rawBody: STRIPE_BODY,
        })
      ).status,
    ).toBe('triggered');
    await h.world.close();
  });

  it('github (@octokit/webhooks-methods sign): X-GitHub-Delivery is the key, X-GitHub-Event the type', async () => {
    const h = await ingressHarness();
    const answer = await h.ingress.handle({
      tenantId: 'acme',
      scopeId: 'acme',
      provider: 'github',
      headers: await githubPacket(GITHUB_BODY),
      rawBody: GITHUB_BODY,
    });
    expect(answer).toMatchObject({
      status: 'triggered',
      dedupeKey: 'github:72d3162e-cc78-11e3-81ab-4c9367dc0958',
    });
    expect(h.received[0]!.input).toEqual({ eventType: 'issues', body: JSON.parse(GITHUB_BODY) });
    // a manual redelivery reuses the delivery id
    expect(
      (
        await h.ingress.handle({
          tenantId: 'acme',
          scopeId: 'acme',
          provider: 'github',
          headers: await githubPacket(GITHUB_BODY),
          rawBody: GITHUB_BODY,
        })
      ).status,
    ).toBe('duplicate');
    await h.world.close();
  });

  it('slack (v0 computed with node:crypto as Slack documents): event_id is the key, the inner event type the type', async () => {
    const h = await ingressHarness();
    const answer = await h.ingress.handle({
      tenantId: 'acme',
      scopeId: 'acme',
      provider: 'slack',
      headers: slackPacket(SLACK_BODY),
      rawBody: SLACK_BODY,
    });
    expect(answer).toMatchObject({ status: 'triggered', dedupeKey: 'slack:Ev0TWIN0001' });
    expect(h.received[0]!.input).toMatchObject({ eventType: 'app_mention' });
    // Slack's retry: newly signed, X-Slack-Retry-Num set, same event_id
    await h.clock.advance(60_000);
    const retry = await h.ingress.handle({
      tenantId: 'acme',
      scopeId: 'acme',
      provider: 'slack',
      headers: { ...slackPacket(SLACK_BODY, T + 60), 'x-slack-retry-num': '1' },
      rawBody: SLACK_BODY,
    });
    expect(retry.status).toBe('duplicate');
    await h.world.close();
  });

  it('slack url_verification: answer() echoes a verified challenge, ingesting and recording nothing; handle() refuses it', async () => {
    const h = await ingressHarness();
    const check = JSON.stringify({ token: 'x', challenge: 'ch4llenge', type: 'url_verification' });
    const request = (raw: string, headers = slackPacket(raw)) => ({
      tenantId: 'acme',
      scopeId: 'acme',
      provider: 'slack',
      headers,
      rawBody: raw,
    });
    const before = await exported(h.world);
    expect(await h.ingress.answer(request(check))).toEqual({
      status: 'challenge',
      challenge: 'ch4llenge',
    });
    expect(h.received).toEqual([]);
    expect(await exported(h.world)).toBe(before);
    // signed like every callback: a wrong signature or a stale one is refused first
    await expectRefusal(
      () =>
        h.ingress.answer(request(check, { ...slackPacket(check), 'x-slack-signature': 'v0=00' })),
      'BAD_SIGNATURE',
    );
    await expectRefusal(
      () => h.ingress.answer(request(check, slackPacket(check, T - 3600))),
      'STALE_TIMESTAMP',
    );
    // a challenge that cannot be echoed is named
    for (const challenge of [undefined, '', 42, 'x'.repeat(1025)]) {
      const raw = JSON.stringify({ type: 'url_verification', challenge });
      await expectRefusal(() => h.ingress.answer(request(raw)), 'INVALID_BODY', 'body.challenge');
    }
    // handle() ingests events only: the handshake is refused, pointing at answer()
    const refused = await expectRefusal(() => h.ingress.handle(request(check)), 'INVALID_BODY');
    expect(refused.message).toContain('WebhookIngress.answer()');
    // other bodies answer as handle() does
    expect(await h.ingress.answer(request(SLACK_BODY))).toMatchObject({ status: 'triggered' });
    await h.world.close();
  });

  it('standard-webhooks and svix (their own sign): webhook-id / svix-id is the key', async () => {
    const h = await ingressHarness();
    const a = await h.ingress.handle({
      tenantId: 'acme',
      scopeId: 'acme',
      provider: 'acme',
      headers: stdPacket(STD_BODY),
      rawBody: STD_BODY,
    });
    expect(a).toMatchObject({
      status: 'triggered',
      dedupeKey: 'acme:msg_2KWPBgLlAfxdpx2AI54pPJ85f4W',
    });
    expect(h.received[0]!.input).toMatchObject({ eventType: 'invoice.paid' });
    const b = await h.ingress.handle({
      tenantId: 'acme',
      scopeId: 'acme',
      provider: 'acme',
      headers: stdPacket(STD_BODY, 'msg_svix_2', T, 'svix'),
      rawBody: STD_BODY,
    });
    expect(b).toMatchObject({ status: 'triggered', dedupeKey: 'acme:msg_svix_2' });
    const again = await h.ingress.handle({
      tenantId: 'acme',
      scopeId: 'acme',
      provider: 'acme',
      headers: stdPacket(STD_BODY, 'msg_svix_2', T + 10, 'svix'),
      rawBody: STD_BODY,
    });
    expect(again.status).toBe('duplicate');
    await h.world.close();
  });

  it('our own schemes for every provider format, including hmac-sha256 v2 (signed id) and v1 with and without X-Delivery-Id', async () => {
    const h = await ingressHarness();
    const handle = (provider: string, headers: Record<string, string>, body: string) =>
      h.ingress.handle({ tenantId: 'acme', scopeId: 'acme', provider, headers, rawBody: body });
    expect(
      (await handle('stripe', ownPacket('stripe', SECRETS.stripe, STRIPE_BODY), STRIPE_BODY))
        .status,
    ).toBe('triggered');
    expect(
      (
        await handle(
          'github',
          { ...ownPacket('github', SECRETS.github, GITHUB_BODY), 'X-GitHub-Delivery': 'd-1' },
          GITHUB_BODY,
        )
      ).dedupeKey,
    ).toBe('github:d-1');
    expect(
      (await handle('slack', ownPacket('slack', SECRETS.slack, SLACK_BODY), SLACK_BODY)).status,
    ).toBe('triggered');
    expect(
      (
        await handle(
          'acme',
          ownPacket('standard-webhooks', SECRETS.std, STD_BODY, T, 'msg_own_9'),
          STD_BODY,
        )
      ).dedupeKey,
    ).toBe('acme:msg_own_9');
    // v2 (what twinworld sends): the delivery id is signed and is the dedupe key
    const signed = await handle(
      'plain',
      ownPacket('hmac-sha256', SECRETS.hmac, HMAC_BODY, T, 'dlv_signed'),
      HMAC_BODY,
    );
    expect(signed.dedupeKey).toBe('plain:dlv_signed');
    // v1 (a legacy sender): X-Delivery-Id when sent, else the body's hash
    const v1Body = HMAC_BODY.replace('"n":1', '"n":2');
    const withId = await handle(
      'plain',
      { ...hmacHeadersFor(Buffer.from(v1Body)), 'X-Delivery-Id': 'dlv_1' },
      v1Body,
    );
    expect(withId.dedupeKey).toBe('plain:dlv_1');
    const v1Other = HMAC_BODY.replace('"n":1', '"n":3');
    const byHash = await handle('plain', hmacHeadersFor(Buffer.from(v1Other)), v1Other);
    expect(byHash.dedupeKey).toBe(
      `plain:sha256:${createHash('sha256').update(v1Other).digest('hex')}`,
    );
    // the same bytes re-signed later hash to the same key: a duplicate
    await h.clock.advance(30_000);
    expect(
      (await handle('plain', hmacHeadersFor(Buffer.from(v1Other), T + 30), v1Other)).status,
    ).toBe('duplicate');
    await h.world.close();
  });

  it('a tenant’s own endpoint takes precedence over the one serving every tenant', async () => {
    const own = 'whsec_globexOwnSecret000000000000000001';
    const h = await ingressHarness([
      {
        tenantId: 'globex',
        provider: 'stripe',
        triggerId: 'stripe.events',
        scheme: 'stripe',
        resolveSecrets: () => [own],
      },
    ]);
    await expectRefusal(
      () =>
        h.ingress.handle({
          tenantId: 'globex',
          scopeId: 'globex',
          provider: 'stripe',
          headers: stripePacket(STRIPE_BODY),
          rawBody: STRIPE_BODY,
        }),
      'BAD_SIGNATURE',
    );
    expect(
      (
        await h.ingress.handle({
          tenantId: 'globex',
          scopeId: 'globex',
          provider: 'stripe',
          headers: stripePacket(STRIPE_BODY, T, own),
          rawBody: STRIPE_BODY,
        })
      ).status,
    ).toBe('triggered');
    expect(
      (
        await h.ingress.handle({
          tenantId: 'acme',
          scopeId: 'acme',
          provider: 'stripe',
          headers: stripePacket(STRIPE_BODY),
          rawBody: STRIPE_BODY,
        })
      ).status,
    ).toBe('triggered');
    await h.world.close();
  });
});

describe('refused packets: typed, counted without the body, never ingested', () => {
  const MARKER = 'ada-lovelace-marker@example.com';
  const body = JSON.stringify({
    id: 'evt_refused',
    object: 'event',
    type: 'customer.created',
    data: { object: { email: MARKER } },
  });

  /** The refusal is counted in its source's window: one aggregate, written at its first refusal. */
  async function refused(
    make: (h: IngressHarness) => Promise<unknown>,
    code: string,
    path?: string,
  ): Promise<{
    h: IngressHarness;
    receipt: RefusalWindowFields & { path: string | null; message: string };
  }> {
    const h = await ingressHarness();
    await expectRefusal(() => make(h), code as never, path);
    expect(h.received).toEqual([]);
    const all = await refusalWindows(h.world);
    expect(all).toHaveLength(1);
    const window = all[0]!;
    expect(window).toMatchObject({
      count: 1,
      byCode: { [code]: 1 },
      lastCode: code,
      tenantId: 'acme',
      sourceKind: 'webhook',
    });
    const log = await exported(h.world);
    expect(log).not.toContain(MARKER);
    for (const s of Object.values(SECRETS)) expect(log).not.toContain(s);
    expect((await h.world.twin('triggers').entries()).map((e) => e.operation)).toEqual([
      'trigger.refusals',
    ]);
    return { h, receipt: { ...window, path: window.lastPath, message: window.lastMessage } };
  }

  const stripeReq = (
    h: IngressHarness,
    headers: Record<string, string>,
    raw: string | Buffer = body,
  ) =>
    h.ingress.handle({
      tenantId: 'acme',
      scopeId: 'acme',
      provider: 'stripe',
      headers,
      rawBody: raw,
    });

  it('BAD_SIGNATURE: a tampered body', async () => {
    const { receipt } = await refused(
      (h) => stripeReq(h, stripePacket(body), body.replace('created', 'deleted')),
      'BAD_SIGNATURE',
      'headers.Stripe-Signature',
    );
    expect(receipt).toMatchObject({
      provider: 'stripe',
      triggerId: 'stripe.events',
      path: 'headers.Stripe-Signature',
      bodyBytes: Buffer.byteLength(body),
    });
  });

  it('BAD_SIGNATURE: a secret we do not hold', async () => {
    await refused(
      (h) => stripeReq(h, stripePacket(body, T, 'whsec_someoneElse0000000000000000000001')),
      'BAD_SIGNATURE',
    );
  });

  it('STALE_TIMESTAMP: signed 301 s before the world clock, or 301 s after it', async () => {
    await refused((h) => stripeReq(h, stripePacket(body, T - 301)), 'STALE_TIMESTAMP');
    await refused((h) => stripeReq(h, stripePacket(body, T + 301)), 'STALE_TIMESTAMP');
  });

  it('STALE_TIMESTAMP follows the world clock and the endpoint’s own tolerance (60 s)', async () => {
    const { h } = await refused(async (x) => {
      await x.clock.advance(61_000);
      return x.ingress.handle({
        tenantId: 'acme',
        scopeId: 'acme',
        provider: 'acme',
        headers: stdPacket(STD_BODY),
        rawBody: STD_BODY,
      });
    }, 'STALE_TIMESTAMP');
    await h.world.close();
  });

  it('MISSING_HEADER: no signature at all, or GitHub without X-GitHub-Delivery', async () => {
    await refused((h) => stripeReq(h, {}), 'MISSING_HEADER', 'headers.Stripe-Signature');
    await refused(
      async (h) => {
        const headers = await githubPacket(GITHUB_BODY);
        delete headers['x-github-delivery'];
        return h.ingress.handle({
          tenantId: 'acme',
          scopeId: 'acme',
          provider: 'github',
          headers,
          rawBody: GITHUB_BODY,
        });
      },
      'MISSING_HEADER',
      'headers.X-GitHub-Delivery',
    );
  });

  it('INVALID_BODY: validly signed but not JSON, or not UTF-8', async () => {
    const notJson = `email=${MARKER}&x=1`;
    const { receipt } = await refused(
      (h) => stripeReq(h, stripePacket(notJson), notJson),
      'INVALID_BODY',
      'body',
    );
    expect(receipt.message).not.toContain(MARKER);
    const latin1 = Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xe9, 0x22, 0x7d]);
    await refused(
      (h) =>
        h.ingress.handle({
          tenantId: 'acme',
          scopeId: 'acme',
          provider: 'plain',
          headers: hmacHeadersFor(latin1),
          rawBody: latin1,
        }),
      'INVALID_BODY',
      'body',
    );
  });

  it('INVALID_BODY: a Stripe body without an event id, a Slack body without event_id', async () => {
    const noId = JSON.stringify({ object: 'event', type: 'x', email: MARKER });
    await refused((h) => stripeReq(h, stripePacket(noId), noId), 'INVALID_BODY', 'body.id');
    const slackReq = (h: IngressHarness, raw: string): Promise<unknown> =>
      h.ingress.handle({
        tenantId: 'acme',
        scopeId: 'acme',
        provider: 'slack',
        headers: slackPacket(raw),
        rawBody: raw,
      });
    const noEvent = JSON.stringify({ type: 'event_callback', event: { type: 'x', text: MARKER } });
    await refused((h) => slackReq(h, noEvent), 'INVALID_BODY', 'body.event_id');
    // What Slack posts that is no Events API callback is named as what it is, not as a missing
    // event_id or "not JSON".
    const check = JSON.stringify({ type: 'url_verification', challenge: MARKER });
    const verification = await refused((h) => slackReq(h, check), 'INVALID_BODY', 'body.type');
    expect(verification.receipt.message).toMatch(/^slack: url_verification \(Slack checking a/);
    const form = `payload=${encodeURIComponent(JSON.stringify({ type: 'block_actions', x: MARKER }))}`;
    const interactive = await refused((h) => slackReq(h, form), 'INVALID_BODY', 'body');
    expect(interactive.receipt.message).toMatch(
      /^slack: the body is form-encoded \(\d+ bytes\), as Slack posts interactivity payloads/,
    );
  });

  it('INVALID_ENVELOPE: a delivery id that cannot be a dedupe key', async () => {
    const spaced = JSON.stringify({ id: 'evt with spaces', type: 'x', email: MARKER });
    await refused((h) => stripeReq(h, stripePacket(spaced), spaced), 'INVALID_ENVELOPE', 'eventId');
  });

  it('PAYLOAD_TOO_LARGE: a body over the ingress limit is refused before verification', async () => {
    const h = await ingressHarness([], { maxBodyBytes: 64 });
    await expectRefusal(() => stripeReq(h, stripePacket(body)), 'PAYLOAD_TOO_LARGE', 'body');
    expect(await refusalWindows(h.world)).toMatchObject([
      { count: 1, lastCode: 'PAYLOAD_TOO_LARGE', bodyBytes: Buffer.byteLength(body) },
    ]);
    expect(h.resolved).toEqual([]);
    expect(await exported(h.world)).not.toContain(MARKER);
    await h.world.close();
  });
});

/** A v1 hmac-sha256 packet (timestamp and body signed, no id), as a legacy sender makes it. */
function hmacHeadersFor(raw: Buffer, ts = T): Record<string, string> {
  const sig = createHmac('sha256', SECRETS.hmac).update(`${ts}.`).update(raw).digest('hex');
  return { 'X-Signature': `sha256=${sig}`, 'X-Timestamp': String(ts) };
}

describe('other refusals', () => {
  it('UNKNOWN_ENDPOINT for a provider or tenant with no endpoint, not recorded (there is no tenant to record it for)', async () => {
    const h = await ingressHarness();
    await expectRefusal(
      () =>
        h.ingress.handle({
          tenantId: 'acme',
          scopeId: 'acme',
          provider: 'paypal',
          headers: {},
          rawBody: '{}',
        }),
      'UNKNOWN_ENDPOINT',
      'provider',
    );
    await expectRefusal(
      () =>
        h.ingress.handle({
          tenantId: 'bad tenant',
          scopeId: 'x',
          provider: 'paypal',
          headers: {},
          rawBody: '{}',
        }),
      'UNKNOWN_ENDPOINT',
    );
    expect(await h.world.twin('triggers').head()).toBe(0);
    await h.world.close();
  });

  it('PAYLOAD_CONFLICT: a validly signed packet reusing an event id with another body (recorded by the engine)', async () => {
    const h = await ingressHarness();
    await h.ingress.handle({
      tenantId: 'acme',
      scopeId: 'acme',
      provider: 'stripe',
      headers: stripePacket(STRIPE_BODY),
      rawBody: STRIPE_BODY,
    });
    const other = STRIPE_BODY.replace('ada@example.com', 'eve@example.com');
    await expectRefusal(
      () =>
        h.ingress.handle({
          tenantId: 'acme',
          scopeId: 'acme',
          provider: 'stripe',
          headers: stripePacket(other),
          rawBody: other,
        }),
      'PAYLOAD_CONFLICT',
      'payload',
    );
    expect(await receipts(h.world)).toMatchObject([
      {
        status: 'refused',
        code: 'PAYLOAD_CONFLICT',
        recordId: recordId('acme', 'stripe:evt_1Ingress'),
      },
    ]);
    expect(await exported(h.world)).not.toContain('eve@example.com');
    await h.world.close();
  });

  it('the same delivery for another scope of the tenant is a conflict, not a duplicate', async () => {
    const h = await ingressHarness();
    await h.ingress.handle({
      tenantId: 'acme',
      scopeId: 'acme',
      provider: 'stripe',
      headers: stripePacket(STRIPE_BODY),
      rawBody: STRIPE_BODY,
    });
    await expectRefusal(
      () =>
        h.ingress.handle({
          tenantId: 'acme',
          scopeId: 'store-2',
          provider: 'stripe',
          headers: stripePacket(STRIPE_BODY),
          rawBody: STRIPE_BODY,
        }),
      'PAYLOAD_CONFLICT',
      'scopeId',
    );
    await h.world.close();
  });

  it('server-side mistakes are INVALID_CONFIG, never recorded as the packet’s fault and never echo a secret', async () => {
    const bad = 'whsec_not base64!!';
    const h = await ingressHarness([
      {
        provider: 'empty',
        triggerId: 'std.events',
        scheme: 'standard-webhooks',
        resolveSecrets: () => [],
      },
      {
        provider: 'malformed',
        triggerId: 'std.events',
        scheme: 'standard-webhooks',
        resolveSecrets: () => [bad],
      },
      {
        provider: 'shape',
        triggerId: 'std.events',
        scheme: 'standard-webhooks',
        resolveSecrets: () => 'whsec_oops' as never,
      },
    ]);
    for (const provider of ['empty', 'malformed', 'shape']) {
      const e = await expectRefusal(
        () =>
          h.ingress.handle({
            tenantId: 'acme',
            scopeId: 'acme',
            provider,
            headers: stdPacket(STD_BODY),
            rawBody: STD_BODY,
          }),
        'INVALID_CONFIG',
        'resolveSecrets',
      );
      expect(e.message).not.toContain('not base64!!');
      expect(e.message).not.toContain('oops');
    }
    expect(await h.world.twin('triggers').head()).toBe(0);
    await h.world.close();
  });

  it('refuses bad requests and use before the engine starts', async () => {
    const h = await ingressHarness([], { start: false });
    await expectRefusal(
      () =>
        h.ingress.handle({
          tenantId: 'acme',
          scopeId: 'acme',
          provider: 'stripe',
          headers: {},
          rawBody: '{}',
        }),
      'ENGINE_STOPPED',
    );
    await h.engine.start();
    await expectRefusal(() => h.ingress.handle(null as never), 'INVALID_ARGUMENT', 'request');
    await expectRefusal(
      () =>
        h.ingress.handle({
          tenantId: 'acme',
          scopeId: 'has space',
          provider: 'stripe',
          headers: {},
          rawBody: '{}',
        }),
      'INVALID_ARGUMENT',
      'scopeId',
    );
    await expectRefusal(
      () =>
        h.ingress.handle({
          tenantId: 'acme',
          scopeId: 'acme',
          provider: 'stripe',
          headers: null as never,
          rawBody: '{}',
        }),
      'INVALID_ARGUMENT',
      'headers',
    );
    await expectRefusal(
      () =>
        h.ingress.handle({
          tenantId: 'acme',
          scopeId: 'acme',
          provider: 'stripe',
          headers: {},
          rawBody: { parsed: true } as never,
        }),
      'INVALID_ARGUMENT',
      'rawBody',
    );
    expect(await h.world.twin('triggers').head()).toBe(0);
    await h.world.close();
  });

  it.each([
    [
      { provider: 'Stripe', triggerId: 't', scheme: 'stripe', resolveSecrets: () => [] },
      'endpoints[0].provider',
    ],
    [
      { provider: 'x', triggerId: 'bad id', scheme: 'stripe', resolveSecrets: () => [] },
      'endpoints[0].triggerId',
    ],
    [
      { provider: 'x', triggerId: 't', scheme: 'paypal', resolveSecrets: () => [] },
      'endpoints[0].scheme',
    ],
    [
      { provider: 'x', triggerId: 't', scheme: 'stripe', resolveSecrets: 'whsec_x' },
      'endpoints[0].resolveSecrets',
    ],
    [
      {
        provider: 'x',
        triggerId: 't',
        scheme: 'stripe',
        resolveSecrets: () => [],
        toleranceSec: -1,
      },
      'endpoints[0].toleranceSec',
    ],
    [
      {
        tenantId: 'bad tenant',
        provider: 'x',
        triggerId: 't',
        scheme: 'stripe',
        resolveSecrets: () => [],
      },
      'endpoints[0].tenantId',
    ],
  ])('endpoint configuration %j is refused at %s', async (endpoint, path) => {
    await expectRefusal(
      () => new WebhookIngress({ endpoints: [endpoint as never] }),
      'INVALID_CONFIG',
      path,
    );
  });

  it('refuses two endpoints for one provider and tenant, and a bad body limit', async () => {
    const e = {
      provider: 'x',
      triggerId: 't',
      scheme: 'stripe' as const,
      resolveSecrets: () => ['s'],
    };
    await expectRefusal(
      () => new WebhookIngress({ endpoints: [e, e] }),
      'INVALID_CONFIG',
      'endpoints[1].provider',
    );
    expect(() => new WebhookIngress({ endpoints: [e, { ...e, tenantId: 'acme' }] })).not.toThrow();
    await expectRefusal(
      () => new WebhookIngress({ maxBodyBytes: 0 }),
      'INVALID_ARGUMENT',
      'maxBodyBytes',
    );
  });
});
