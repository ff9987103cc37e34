// Standard Webhooks pack: a sender for any app (a factory), endpoints with filterTypes, secret
// rotation that signs with both secrets during the grace period, and the Svix retry schedule —
// each packet verified by both standardwebhooks and svix.
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { openWorld, registerPack, VirtualClock } from '../../src/index.js';
import * as sw from '../../packs/standard-webhooks/index.js';
import { collect } from '../support/backends.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { Webhook as SvixWebhook } from 'svix';
import { header, standardWebhooksVerifier } from './verifiers.js';
import { secrets, virtualWorld } from './support.js';

const acme = sw.createStandardWebhooksPack({
  name: 'acme',
  eventTypes: ['invoice.paid', 'invoice.voided', 'user.created'],
});

const receivers: Receiver[] = [];
afterAll(async () => {
  for (const r of receivers) await r.close();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('standard-webhooks sender', () => {
  it('sends {type, timestamp, data} to endpoints whose filterTypes take the type (null = all), not to disabled ones', async () => {
    const world = openWorld({
      root: ':memory:',
      clock: new VirtualClock('2026-07-01T00:00:00Z'),
      seed: 'sw',
    });
    const twin = registerPack(world, acme);
    const all = await sw.createEndpoint(twin, { url: 'https://all.example.com' });
    const invoices = await sw.createEndpoint(twin, {
      url: 'https://inv.example.com',
      filterTypes: ['invoice.paid'],
    });
    const off = await sw.createEndpoint(twin, { url: 'https://off.example.com' });
    await sw.updateEndpoint(twin, off.id, { disabled: true });
    expect(all.id).toMatch(/^ep_[0-9A-Za-z]{27}$/);
    expect(all.secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    const msg = await sw.sendMessage(twin, {
      eventType: 'invoice.paid',
      payload: { id: 'inv_1', amount: 10 },
    });
    await sw.sendMessage(twin, { eventType: 'user.created', payload: { id: 'u_1' } });
    expect(msg.id).toMatch(/^msg_[0-9A-Za-z]{27}$/);
    const byEndpoint = async (id: string) =>
      (await twin.list('delivery'))
        .filter((d) => d.fields.endpointId === id)
        .map((d) => JSON.parse(String(d.fields.body)) as { type: string });
    expect((await byEndpoint(all.id)).map((b) => b.type).sort()).toEqual([
      'invoice.paid',
      'user.created',
    ]);
    expect(await byEndpoint(invoices.id)).toEqual([
      {
        type: 'invoice.paid',
        timestamp: '2026-07-01T00:00:00.000Z',
        data: { amount: 10, id: 'inv_1' },
      },
    ]);
    expect(await byEndpoint(off.id)).toEqual([]);
  });

  it('refuses undeclared event types, malformed secrets and unregistered twins', async () => {
    const world = openWorld({ root: ':memory:', seed: 'sw-2' });
    const twin = registerPack(world, acme);
    await expect(sw.sendMessage(twin, { eventType: 'invoice.lost', payload: {} })).rejects.toThrow(
      /invoice.paid, invoice.voided, user.created/,
    );
    await expect(
      sw.createEndpoint(twin, { url: 'https://x.example.com', filterTypes: ['nope'] }),
    ).rejects.toThrow(expect.objectContaining({ vendorCode: 'unknown_event_type' }));
    await expect(
      sw.createEndpoint(twin, { url: 'https://x.example.com', secret: 'whsec_short' }),
    ).rejects.toThrow(expect.objectContaining({ vendorCode: 'invalid_secret' }));
    await expect(
      sw.createEndpoint(twin, { url: 'https://x.example.com', secret: 'not-a-whsec' }),
    ).rejects.toThrow(expect.objectContaining({ path: 'secret' }));
    await expect(
      sw.sendMessage(world.twin('other'), { eventType: 'invoice.paid', payload: {} }),
    ).rejects.toThrow(/not a Standard Webhooks sender/);
    expect(() => sw.createStandardWebhooksPack({ name: 'x', eventTypes: [] })).toThrow(
      expect.objectContaining({ code: 'INVALID_CONFIG' }),
    );
  });

  it('uses the Svix schedule: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h with ±20% jitter', async () => {
    expect(sw.SVIX_RETRY).toMatchObject({
      delaysMs: [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000],
      jitter: 0.2,
    });
    expect(acme.events.retry).toBe(sw.SVIX_RETRY);
  });
});

describe('standard-webhooks delivery over HTTP', () => {
  it('a retry after a rotation carries both signatures, each verifying alone; after the grace only the new one', async () => {
    // The virtual clock and Date move together, so the verifiers' ±5 min window and the secret's
    // grace period are judged on the same time line as the world.
    const start = Date.now();
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(start);
    const statuses = [500, 200, 200];
    const receiver = await startReceiver(() => statuses.shift() ?? 200);
    receivers.push(receiver);
    const { clock, world, twin, dispatcher } = virtualWorld(acme);
    const advance = async (ms: number) => {
      vi.setSystemTime(clock.now() + ms);
      await clock.advance(ms);
      await dispatcher.idle();
    };
    const oldSecret = secrets.standardWebhooks();
    const endpoint = await sw.createEndpoint(twin, {
      url: `${receiver.url}/hooks`,
      secret: oldSecret,
    });
    await sw.sendMessage(twin, { eventType: 'invoice.paid', payload: { id: 'inv_1' } });
    await dispatcher.idle();
    expect(receiver.requests).toHaveLength(1);
    expect(header(receiver.requests[0]!, 'webhook-signature').split(' ')).toHaveLength(1);

    const newSecret = secrets.standardWebhooks();
    const rotated = await sw.rotateEndpointSecret(twin, endpoint.id, {
      secret: newSecret,
      graceMs: 3600_000,
    });
    expect(rotated.oldSecretExpiresAt).toBe(new Date(clock.now() + 3600_000).toISOString());
    await advance(7_000); // 5 s ± 20%
    expect(receiver.requests).toHaveLength(2);
    const retry = receiver.requests[1]!;
    expect(header(retry, 'webhook-signature').split(' ')).toHaveLength(2);
    expect(header(retry, 'webhook-id')).toBe(header(receiver.requests[0]!, 'webhook-id'));
    expect(header(retry, 'webhook-id')).toMatch(/^msg_[0-9A-Za-z]{27}$/);
    expect(header(retry, 'webhook-timestamp')).not.toBe(
      header(receiver.requests[0]!, 'webhook-timestamp'),
    );
    for (const secret of [oldSecret, newSecret])
      expect(await standardWebhooksVerifier.verify(retry, secret)).toMatchObject({
        type: 'invoice.paid',
        data: { id: 'inv_1' },
      });
    expect(await standardWebhooksVerifier.verify(receiver.requests[0]!, oldSecret)).toMatchObject({
      type: 'invoice.paid',
    });
    expect((await twin.list('delivery'))[0]!.fields).toMatchObject({
      state: 'succeeded',
      attempts: 2,
    });

    await advance(3600_000);
    await sw.sendMessage(twin, { eventType: 'user.created', payload: { id: 'u_1' } });
    await dispatcher.idle();
    const later = receiver.requests[2]!;
    expect(header(later, 'webhook-signature').split(' ')).toHaveLength(1);
    expect(await standardWebhooksVerifier.verify(later, newSecret)).toMatchObject({
      type: 'user.created',
    });
    await expect(standardWebhooksVerifier.verify(later, oldSecret)).rejects.toThrow();

    const log = (await collect(twin.exportLines())).join('\n');
    for (const s of [oldSecret, newSecret]) expect(log).not.toContain(s.slice('whsec_'.length));
    expect((await twin.entriesFor('endpoint', endpoint.id)).map((e) => e.operation)).toEqual([
      'endpoint.create',
      'endpoint.rotate_secret',
    ]);
    await world.close();
  });

  it('one message has one webhook-id — the id sendMessage answers — on two endpoints and on a retry', async () => {
    const start = Date.now();
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(start);
    const statuses: Record<string, number[]> = { '/a': [503, 200], '/b': [200] };
    const receiver = await startReceiver((req) => statuses[req.url]?.shift() ?? 200);
    receivers.push(receiver);
    const { clock, world, twin, dispatcher } = virtualWorld(acme, 'sw-one-id');
    const [secretA, secretB] = [secrets.standardWebhooks(), secrets.standardWebhooks()];
    await sw.createEndpoint(twin, { url: `${receiver.url}/a`, secret: secretA });
    await sw.createEndpoint(twin, {
      url: `${receiver.url}/b`,
      secret: secretB,
      filterTypes: ['invoice.paid'],
    });
    const msg = await sw.sendMessage(twin, { eventType: 'invoice.paid', payload: { id: 'inv_9' } });
    await dispatcher.idle();
    vi.setSystemTime(clock.now() + 7_000);
    await clock.advance(7_000); // the Svix retry: 5 s ± 20%
    await dispatcher.idle();

    const byPath = (path: string) => receiver.requests.filter((r) => r.url === path);
    expect(byPath('/a')).toHaveLength(2);
    expect(byPath('/b')).toHaveLength(1);
    for (const req of receiver.requests) expect(header(req, 'webhook-id')).toBe(msg.id);
    // Each official library accepts every packet and reads the same id off it.
    for (const [path, secret] of [
      ['/a', secretA],
      ['/b', secretB],
    ] as const) {
      for (const req of byPath(path)) {
        expect(
          new StandardWebhook(secret).verify(req.body, req.headers as Record<string, string>),
        ).toMatchObject({ type: 'invoice.paid', data: { id: 'inv_9' } });
        expect(
          new SvixWebhook(secret).verify(req.body, req.headers as Record<string, string>),
        ).toMatchObject({ type: 'invoice.paid' });
      }
    }
    const records = (await twin.list('delivery')).map((d) => d.fields);
    expect(records.map((d) => d.messageId)).toEqual([msg.id, msg.id]);
    await world.close();
  });
});
