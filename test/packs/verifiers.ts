// Each pack's official verifier, used unchanged: a packet counts as vendor-faithful only if the
// vendor's own library accepts it. Each also reads the event type the vendor's way.
import { verify as octokitVerify } from '@octokit/webhooks-methods';
import { HTTPModuleFunctions, verifySlackRequest } from '@slack/bolt';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import Stripe from 'stripe';
import { Webhook as SvixWebhook } from 'svix';
import type { ReceivedRequest } from '../support/receiver.js';

export interface OfficialVerifier {
  readonly library: string;
  /** Throws unless the vendor's library accepts the packet; answers the parsed body. */
  verify(req: ReceivedRequest, secret: string): Promise<Record<string, unknown>>;
  /** The kernel event type the packet announces. */
  eventType(req: ReceivedRequest, body: Record<string, unknown>): string;
}

export function header(req: ReceivedRequest, name: string): string {
  const value = req.headers[name.toLowerCase()];
  if (typeof value !== 'string') throw new Error(`header ${name} is missing`);
  return value;
}

const stripe = new Stripe('sk_test_twinworld');

export const stripeVerifier: OfficialVerifier = {
  library: 'stripe (webhooks.constructEvent)',
  async verify(req, secret) {
    return stripe.webhooks.constructEvent(
      req.body,
      header(req, 'stripe-signature'),
      secret,
    ) as unknown as Record<string, unknown>;
  },
  eventType: (_req, body) => String(body.type),
};

export const githubVerifier: OfficialVerifier = {
  library: '@octokit/webhooks-methods (verify)',
  async verify(req, secret) {
    if (!(await octokitVerify(secret, req.body, header(req, 'x-hub-signature-256'))))
      throw new Error('octokit rejected the signature');
    return JSON.parse(req.body) as Record<string, unknown>;
  },
  // push and ping have no action: their kernel type is the bare event name.
  eventType: (req, body) =>
    body.action === undefined
      ? header(req, 'x-github-event')
      : `${header(req, 'x-github-event')}.${String(body.action)}`,
};

export const slackVerifier: OfficialVerifier = {
  library: '@slack/bolt (verifySlackRequest, HTTPModuleFunctions.parseHTTPRequestBody)',
  async verify(req, secret) {
    verifySlackRequest({
      signingSecret: secret,
      body: req.body,
      headers: {
        'x-slack-signature': header(req, 'x-slack-signature'),
        'x-slack-request-timestamp': Number(header(req, 'x-slack-request-timestamp')),
      },
    });
    // Read the way Bolt reads it: JSON, or by content type a form (`payload=<JSON>` or fields).
    return HTTPModuleFunctions.parseHTTPRequestBody({
      rawBody: Buffer.from(req.body),
      headers: req.headers,
    } as never) as Record<string, unknown>;
  },
  // Events API: the inner event's type; url_verification and block_actions: the body's type; a slash command: its form.
  eventType: (_req, body) => {
    const inner = (body.event as { type?: string } | undefined)?.type;
    if (inner !== undefined) return inner;
    return typeof body.command === 'string' ? 'slash_command' : String(body.type);
  },
};

/** Both libraries that speak Standard Webhooks must accept the packet. */
export const standardWebhooksVerifier: OfficialVerifier = {
  library: 'standardwebhooks + svix (Webhook#verify)',
  async verify(req, secret) {
    const headers = req.headers as Record<string, string>;
    const parsed = new StandardWebhook(secret).verify(req.body, headers) as Record<string, unknown>;
    new SvixWebhook(secret).verify(req.body, headers);
    return parsed;
  },
  eventType: (_req, body) => String(body.type),
};
