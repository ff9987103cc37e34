// Every built-in pack runs the shared conformance suite with its vendor's official verifier.
import { githubPack } from '../../packs/github/pack.js';
import { slackPack } from '../../packs/slack/pack.js';
import { standardWebhooksPack } from '../../packs/standard-webhooks/pack.js';
import { stripePack } from '../../packs/stripe/pack.js';
import { runConformance } from './conformance.js';
import { secrets } from './support.js';
import {
  githubVerifier,
  slackVerifier,
  standardWebhooksVerifier,
  stripeVerifier,
} from './verifiers.js';

runConformance({ pack: stripePack, verifier: stripeVerifier, secret: secrets.stripe });
runConformance({ pack: githubPack, verifier: githubVerifier, secret: secrets.github });
runConformance({ pack: slackPack, verifier: slackVerifier, secret: secrets.slack });
runConformance({
  pack: standardWebhooksPack,
  verifier: standardWebhooksVerifier,
  secret: secrets.standardWebhooks,
  secretForms: (s) => [s.slice('whsec_'.length)],
});
