// The pack-authoring guide's smallest complete pack, taken verbatim from packs/README.md, runs
// the conformance suite like every built-in pack — so the example in the guide keeps working.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { getScheme } from '../../src/events/signing/index.js';
import type { VendorPack } from '../../packs/kit/vendor-pack.js';
import { runConformance } from './conformance.js';
import type { OfficialVerifier } from './verifiers.js';

const root = resolve(import.meta.dirname, '../..');
const guide = readFileSync(join(root, 'packs/README.md'), 'utf8');
const block = /As `packs\/acme\/index\.ts`:\n\n```ts\n([\s\S]*?)\n```/.exec(guide)?.[1];
if (block === undefined) throw new Error('packs/README.md no longer holds the acme example block');

// The block imports as if it sat in packs/acme/; point those imports at the repository instead.
const source = block
  .replaceAll("'../../src/index.js'", `'${join(root, 'src/index.js')}'`)
  .replaceAll("'../kit/vendor-pack.js'", `'${join(root, 'packs/kit/vendor-pack.js')}'`);
const dir = join(tmpdir(), `twinworld-readme-${process.pid}`);
mkdirSync(dir, { recursive: true });
writeFileSync(join(dir, 'acme.ts'), source);
const { acmePack } = (await import(join(dir, 'acme.ts'))) as { acmePack: VendorPack };

// Acme has no vendor library: its packets are checked with the kernel's own hmac-sha256 scheme.
const kernelVerifier: OfficialVerifier = {
  library: "the kernel's hmac-sha256 scheme",
  async verify(req, secret) {
    getScheme('hmac-sha256').verify({
      headers: req.headers,
      rawBody: req.body,
      secrets: [secret],
      nowSec: Math.floor(Date.now() / 1000),
    });
    return JSON.parse(req.body) as Record<string, unknown>;
  },
  eventType: (_req, body) => String(body.type),
};

runConformance({
  pack: acmePack,
  verifier: kernelVerifier,
  secret: () => `acme-${Math.random().toString(36).slice(2)}-secret`,
});
