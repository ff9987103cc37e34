// Webhook fixtures shared by the ingress and host tests: the trigger runtime with the webhook
// ingress (one endpoint per signing scheme) on a virtual clock, and packets signed by the vendors' own
// libraries (stripe-node, @octokit/webhooks-methods, standardwebhooks, svix), by Slack's
// documented v0 scheme computed with node:crypto, and by our own schemes.
import { captureTrace } from '../../src/events/trace.js';
import { createHmac } from 'node:crypto';
import { sign as octokitSign } from '@octokit/webhooks-methods';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import Stripe from 'stripe';
import { Webhook as SvixWebhook } from 'svix';
import { getScheme, type SchemeName } from '../../src/events/signing/index.js';
import { VirtualClock } from '../../src/world/clock.js';
import { openWorld, type World } from '../../src/world/world.js';
import type { TriggerEngine } from '../../src/triggers/engine/engine.js';
import { createTriggerRuntime } from '../../src/host/runtime/runtime.js';
import type {
  WebhookEndpoint,
  WebhookIngress,
} from '../../src/triggers/webhook/webhook-ingress.js';

const stripe = new Stripe('sk_test_x');
export const NOW = '2026-03-01T12:00:00.000Z';
export const T = Date.parse(NOW) / 1000;

export const SECRETS = {
  stripe: 'whsec_stripeIngressSecret00000000000001',
  stripeOld: 'whsec_stripeIngressSecret00000000000000',
  github: 'github-ingress-secret-0000000001',
  slack: '8f742231b10e8888abcd99aaabbb85a5',
  std: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  hmac: 'hmac-ingress-secret-00000000000001',
};

export interface IngressHarness {
  world: World;
  clock: VirtualClock;
  engine: TriggerEngine;
  ingress: WebhookIngress;
  received: { triggerId: string; input: unknown }[];
  /** The trace context each routine run saw (the sender's traceparent, when it sent one). */
  traces: (string | null)[];
  resolved: [string, string][];
}

export async function ingressHarness(
  extra: WebhookEndpoint[] = [],
  options: { start?: boolean; maxBodyBytes?: number; clock?: VirtualClock; root?: string } = {},
): Promise<IngressHarness> {
  const clock = options.clock ?? new VirtualClock(NOW);
  const world = openWorld({ root: options.root ?? ':memory:', clock, seed: 'ingress' });
  const received: IngressHarness['received'] = [];
  const traces: (string | null)[] = [];
  const resolved: [string, string][] = [];
  const secrets = (list: string[]) => (tenant: string, scope: string) => {
    resolved.push([tenant, scope]);
    return list;
  };
  const { engine, ingress } = await createTriggerRuntime({
    world,
    routines: {
      inbox: async (input, ctx) => {
        received.push({ triggerId: ctx.envelope.triggerId, input });
        traces.push(captureTrace()?.traceparent ?? null);
        return { ok: true };
      },
    },
    routes: ['stripe.events', 'github.events', 'slack.events', 'std.events', 'hmac.events'].map(
      (t) => ({ triggerId: t, routineId: 'inbox', buildInput: (e) => e.payload }),
    ),
    webhooks: [
      {
        provider: 'stripe',
        triggerId: 'stripe.events',
        scheme: 'stripe',
        resolveSecrets: secrets([SECRETS.stripe, SECRETS.stripeOld]),
      },
      {
        provider: 'github',
        triggerId: 'github.events',
        scheme: 'github',
        resolveSecrets: secrets([SECRETS.github]),
      },
      {
        provider: 'slack',
        triggerId: 'slack.events',
        scheme: 'slack',
        resolveSecrets: secrets([SECRETS.slack]),
      },
      {
        provider: 'acme',
        triggerId: 'std.events',
        scheme: 'standard-webhooks',
        resolveSecrets: secrets([SECRETS.std]),
        toleranceSec: 60,
      },
      {
        provider: 'plain',
        triggerId: 'hmac.events',
        scheme: 'hmac-sha256',
        resolveSecrets: secrets([SECRETS.hmac]),
      },
      ...extra,
    ],
    ...(options.maxBodyBytes === undefined ? {} : { maxBodyBytes: options.maxBodyBytes }),
    start: options.start !== false,
  });
  return { world, clock, engine, ingress, received, resolved, traces };
}

// ---- packets, made with the vendors' own helpers ---------------------------------------------

export function stripePacket(
  body: string,
  timestamp = T,
  secret = SECRETS.stripe,
): Record<string, string> {
  return {
    'stripe-signature': stripe.webhooks.generateTestHeaderString({
      payload: body,
      secret,
      timestamp,
    }),
    'content-type': 'application/json',
  };
}

export async function githubPacket(
  body: string,
  delivery = '72d3162e-cc78-11e3-81ab-4c9367dc0958',
  event = 'issues',
): Promise<Record<string, string>> {
  return {
    'x-hub-signature-256': await octokitSign(SECRETS.github, body),
    'x-github-delivery': delivery,
    'x-github-event': event,
  };
}

/** Slack's documented scheme: v0= HMAC-SHA256 of "v0:<ts>:<body>" with the signing secret. */
export function slackPacket(body: string, ts = T): Record<string, string> {
  const sig = `v0=${createHmac('sha256', SECRETS.slack).update(`v0:${ts}:${body}`).digest('hex')}`;
  return { 'x-slack-signature': sig, 'x-slack-request-timestamp': String(ts) };
}

export function stdPacket(
  body: string,
  id = 'msg_2KWPBgLlAfxdpx2AI54pPJ85f4W',
  ts = T,
  lib: 'standardwebhooks' | 'svix' = 'standardwebhooks',
): Record<string, string> {
  if (lib === 'svix') {
    return {
      'svix-id': id,
      'svix-timestamp': String(ts),
      'svix-signature': new SvixWebhook(SECRETS.std).sign(id, new Date(ts * 1000), body),
    };
  }
  return {
    'webhook-id': id,
    'webhook-timestamp': String(ts),
    'webhook-signature': new StandardWebhook(SECRETS.std).sign(id, new Date(ts * 1000), body),
  };
}

export function ownPacket(
  scheme: SchemeName,
  secret: string,
  body: string,
  ts = T,
  messageId = 'msg_own_1',
): Record<string, string> {
  return getScheme(scheme).sign({ body, secrets: [secret], timestampSec: ts, messageId });
}
