// A rotated secret signs beside the new one for its grace period and not a millisecond longer:
// in the secret store, across processes on one root, and in the packets the dispatcher sends,
// checked by receivers that each hold only one of the secrets (issue 18).
import { rmSync } from 'node:fs';
import Stripe from 'stripe';
import { Webhook } from 'standardwebhooks';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { FileSecretStore, MemorySecretStore } from '../../src/world/secrets.js';
import { tempDir } from '../support/backends.js';
import { dispatchHarness } from '../support/dispatch-harness.js';
import type { InProcessRequest } from '../../src/events/transports/in-process-transport.js';

const roots: string[] = [];
afterAll(() => roots.forEach((r) => rmSync(r, { recursive: true, force: true })));

const T0 = Date.parse('2026-04-01T00:00:00.000Z');
const HOUR = 3_600_000;

describe('the secret store keeps a rotated secret for its grace period only', () => {
  for (const kind of ['memory', 'file'] as const) {
    it(`${kind}: newest first while rotating; the old one is gone at exactly now + grace`, () => {
      const store =
        kind === 'memory'
          ? new MemorySecretStore()
          : new FileSecretStore(roots[roots.push(tempDir()) - 1]!);
      store.set('ep', 'first');
      store.rotate('ep', 'second', T0, HOUR);
      expect(store.resolve('ep', T0)).toEqual(['second', 'first']);
      expect(store.resolve('ep', T0 + HOUR - 1)).toEqual(['second', 'first']);
      expect(store.resolve('ep', T0 + HOUR)).toEqual(['second']);
      expect(store.resolve('ep', T0 + 100 * HOUR)).toEqual(['second']);
      // a zero grace retires the old secret at once
      store.rotate('ep', 'third', T0 + 2 * HOUR, 0);
      expect(store.resolve('ep', T0 + 2 * HOUR)).toEqual(['third']);
      expect(store.resolve('nobody', T0)).toEqual([]);
    });
  }

  it("a second rotation never extends an older secret's expiry, and drops a secret already expired", () => {
    const store = new MemorySecretStore();
    store.set('ep', 'a');
    store.rotate('ep', 'b', T0, HOUR); // a until T0+1h
    store.rotate('ep', 'c', T0 + 10 * 60_000, 2 * HOUR); // b until T0+2h10m, a still until T0+1h
    expect(store.resolve('ep', T0 + HOUR - 1)).toEqual(['c', 'b', 'a']);
    expect(store.resolve('ep', T0 + HOUR)).toEqual(['c', 'b']);
    expect(store.resolve('ep', T0 + 130 * 60_000 - 1)).toEqual(['c', 'b']);
    expect(store.resolve('ep', T0 + 130 * 60_000)).toEqual(['c']);
    // rotating after a's expiry drops it for good, even when asked about an earlier time
    store.rotate('ep', 'd', T0 + 3 * HOUR, HOUR);
    expect(store.resolve('ep', T0)).toEqual(['d', 'c']);
  });

  it("a file store sees another process's rotation, expiry included, after a reload", () => {
    const root = tempDir();
    roots.push(root);
    const writer = new FileSecretStore(root);
    writer.set('ep', 'old');
    writer.rotate('ep', 'new', T0, HOUR);
    const reader = new FileSecretStore(root);
    expect(reader.resolve('ep', T0 + HOUR - 1)).toEqual(['new', 'old']);
    expect(reader.resolve('ep', T0 + HOUR)).toEqual(['new']);
  });

  it('refuses a negative or non-finite grace period and leaves the secrets as they were', () => {
    const store = new MemorySecretStore();
    store.set('ep', 'a');
    for (const grace of [-1, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => store.rotate('ep', 'b', T0, grace)).toThrow(
        expect.objectContaining({ code: 'INVALID_ARGUMENT', path: 'graceMs' }),
      );
    }
    expect(store.resolve('ep', T0 + 100 * HOUR)).toEqual(['a']);
  });
});

const NEW_SW = 'whsec_bmV3IHNlY3JldCBmb3Igcm90YXRpb24gdGVzdHMh';
const OLD_SW = 'whsec_b2xkIHNlY3JldCBmb3Igcm90YXRpb24gdGVzdHMh';

/** Verifies a standard-webhooks packet as the vendor's library does, at the packet's arrival time. */
function swVerifies(secret: string, req: InProcessRequest): boolean {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(req.receivedAt);
  try {
    new Webhook(secret).verify(req.body, req.headers as Record<string, string>);
    return true;
  } catch {
    return false;
  } finally {
    vi.useRealTimers();
  }
}

describe('the dispatcher signs with every active secret, and stops using one when it expires', () => {
  it('standard-webhooks: both signatures during the grace period, only the new one after; receivers holding one secret agree', async () => {
    const s = await dispatchHarness(() => 200);
    await s.world.secrets.set('ep', OLD_SW);
    await s.world.secrets.rotate('ep', NEW_SW, s.clock.now(), HOUR);
    await s.create();
    await s.dispatcher.idle();
    const id = (await s.delivery()).id;
    await s.clock.advance(HOUR - 1);
    await s.dispatcher.redeliver(id);
    await s.clock.advance(1);
    await s.dispatcher.redeliver(id);
    const [atStart, lastMoment, expired] = s.received;
    expect(atStart!.headers['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(lastMoment!.headers['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(expired!.headers['webhook-signature']!.split(' ')).toHaveLength(1);
    for (const req of [atStart!, lastMoment!])
      expect([swVerifies(OLD_SW, req), swVerifies(NEW_SW, req)]).toEqual([true, true]);
    expect([swVerifies(OLD_SW, expired!), swVerifies(NEW_SW, expired!)]).toEqual([false, true]);
  });

  it('stripe: one v1 per active secret on the wire; stripe-node with the old secret alone refuses once it expired', async () => {
    const s = await dispatchHarness(() => 200, { signing: 'stripe' });
    const { world, clock } = s;
    const stripe = new Stripe('sk_test_x');
    const OLD = 'whsec_oldStripeRotationSecret0001';
    const NEW = 'whsec_newStripeRotationSecret0002';
    await world.secrets.set('ep', OLD);
    await world.secrets.rotate('ep', NEW, clock.now(), HOUR);
    await s.create();
    await s.dispatcher.idle();
    await clock.advance(HOUR);
    await s.dispatcher.redeliver((await s.delivery()).id);
    const [during, after] = s.received;
    const accepts = (secret: string, req: InProcessRequest) => {
      try {
        stripe.webhooks.constructEvent(
          req.body,
          req.headers['Stripe-Signature']!,
          secret,
          300,
          undefined,
          req.receivedAt,
        );
        return true;
      } catch {
        return false;
      }
    };
    expect(during!.headers['Stripe-Signature']!.match(/v1=/g)).toHaveLength(2);
    expect([accepts(OLD, during!), accepts(NEW, during!)]).toEqual([true, true]);
    expect(after!.headers['Stripe-Signature']!.match(/v1=/g)).toHaveLength(1);
    expect([accepts(OLD, after!), accepts(NEW, after!)]).toEqual([false, true]);
  });
});
