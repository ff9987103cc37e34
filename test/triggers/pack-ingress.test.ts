// Packets made by the twin packs (packs/: stripe, github, slack, standard-webhooks), sent by the
// send-once dispatcher over loopback HTTP to the ingress host: each verifies and triggers once.
import { describe, expect, it } from 'vitest';
import { sendEvent } from '../../packs/index.js';
import { TriggerEngine } from '../../src/triggers/engine/engine.js';
import { startIngressHost } from '../../src/host/ingress/ingress-host.js';
import { InProcessRunner } from '../../src/triggers/in-process-runner.js';
import { listTriggerRecords } from '../../src/triggers/list.js';
import { WebhookIngress } from '../../src/triggers/webhook/webhook-ingress.js';
import { RealClock } from '../../src/world/clock.js';
import { openWorld } from '../../src/world/world.js';
import { SECRETS } from './packets.js';

const CASES = [
  {
    pack: 'stripe',
    eventType: 'customer.created',
    scheme: 'stripe',
    secret: SECRETS.stripe,
    key: /^stripe:evt_/,
  },
  {
    pack: 'github',
    eventType: 'issues.opened',
    scheme: 'github',
    secret: SECRETS.github,
    key: /^github:[0-9a-f-]{36}$/,
  },
  {
    pack: 'slack',
    eventType: 'app_mention',
    scheme: 'slack',
    secret: SECRETS.slack,
    key: /^slack:Ev/,
  },
  {
    pack: 'standard-webhooks',
    eventType: 'invoice.paid',
    scheme: 'standard-webhooks',
    secret: SECRETS.std,
    key: /^standard-webhooks:msg_/,
  },
] as const;

describe('packets from the twin packs', () => {
  it.each(CASES)(
    '$pack $eventType verifies at the ingress host and triggers once',
    async ({ pack, eventType, scheme, secret, key }) => {
      // The receiver's world runs on real time: the pack signs for a receiver outside its world.
      const world = openWorld({ root: ':memory:', clock: new RealClock() });
      const got: unknown[] = [];
      const runner = new InProcessRunner(world).register(
        'inbox',
        async (input) => (got.push(input), { ok: true }),
      );
      const engine = new TriggerEngine({ world, runner });
      engine.registerRoute({
        triggerId: 'inbox',
        routineId: 'inbox',
        buildInput: (e) => e.payload,
      });
      const ingress = new WebhookIngress({
        endpoints: [{ provider: pack, triggerId: 'inbox', scheme, resolveSecrets: () => [secret] }],
      });
      engine.registerSource(ingress);
      await engine.start();
      const host = await startIngressHost({ world, engine, ingress });

      const sender = openWorld({ root: ':memory:' });
      const result = await sendEvent(sender, {
        pack,
        eventType,
        to: `${host.url}/ingress/acme/${pack}`,
        secret,
      });
      expect(result).toMatchObject({ status: 200, outcome: 'succeeded' });
      expect(got).toHaveLength(1);
      const [row] = await listTriggerRecords(world);
      expect(row).toMatchObject({ status: 'triggered', provider: pack, sourceKind: 'webhook' });
      expect(row!.dedupeKey).toMatch(key);
      await sender.close();
      await host.close();
    },
  );
});
