// Svix-style ids (prefix + 27-character KSUID: ep_…, msg_…) and whsec_ secrets (base64 of 24
// random bytes), from the world's id source; and the shapes the conformance suite checks.
import type { IdSource } from '../../src/index.js';
import type { IdShapes } from '../kit/vendor-pack.js';

export const swIds = {
  endpoint: (ids: IdSource) => `ep_${ids.ksuid()}`,
  message: (ids: IdSource) => `msg_${ids.ksuid()}`,
  secret: (ids: IdSource) => `whsec_${ids.bytes(24).toString('base64')}`,
};

export const swIdShapes: IdShapes = {
  eventId: /^evt_[0-9A-Za-z]{24}$/,
  // webhook-id: the message's id (msg_ + KSUID), the same on every endpoint and every retry.
  messageId: /^msg_[0-9A-Za-z]{27}$/,
  resources: {
    endpoint: /^ep_[0-9A-Za-z]{27}$/,
    message: /^msg_[0-9A-Za-z]{27}$/,
  },
};
