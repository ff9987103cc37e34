// The built-in packs, in one list that index.ts exports and send.ts resolves names against.
import { githubPack } from './github/pack.js';
import type { VendorPack } from './kit/vendor-pack.js';
import { slackPack } from './slack/pack.js';
import { standardWebhooksPack } from './standard-webhooks/pack.js';
import { stripePack } from './stripe/pack.js';

export const builtInPacks: readonly VendorPack[] = [
  githubPack,
  slackPack,
  standardWebhooksPack,
  stripePack,
];
