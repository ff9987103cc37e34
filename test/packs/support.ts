// Shared helpers for pack tests: fresh secrets in each vendor's format, and a world whose
// virtual clock starts at wall time — retries run when the test advances it, while the default
// HTTP transport still signs on wall time for the vendors' own verifiers.
import { randomBytes } from 'node:crypto';
import { Dispatcher, openWorld, registerPack, VirtualClock, type Pack } from '../../src/index.js';

export const secrets = {
  stripe: () => `whsec_${randomBytes(24).toString('base64url').replace(/[-_]/g, 'x')}`,
  github: () => `gh-secret-${randomBytes(12).toString('hex')}`,
  slack: () => randomBytes(16).toString('hex'),
  standardWebhooks: () => `whsec_${randomBytes(24).toString('base64')}`,
};

export function virtualWorld(pack: Pack, seed = 'packs') {
  const clock = new VirtualClock(Date.now());
  const world = openWorld({ root: ':memory:', clock, seed });
  const twin = registerPack(world, pack);
  const dispatcher = new Dispatcher(world);
  return { clock, world, twin, dispatcher };
}
