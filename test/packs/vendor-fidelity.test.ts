// The last fidelity differences, checked against the vendors' own published references: the
// fields of Stripe's Product and of an embedded list come from stripe-node's type declarations
// (generated from Stripe's OpenAPI spec), GitHub's release from its OpenAPI description, and
// Slack's block_actions from Bolt's BlockAction type.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as github from '../../packs/github/index.js';
import * as slack from '../../packs/slack/index.js';
import * as stripe from '../../packs/stripe/index.js';
import type { Scenario } from '../../packs/kit/vendor-pack.js';
import { openWorld, registerPack, VirtualClock, type Pack } from '../../src/index.js';

const require = createRequire(import.meta.url);
const stripeTypes = join(dirname(require.resolve('stripe')), '..', 'cjs');
const octokitTypes = join(
  dirname(require.resolve('@octokit/openapi-types/package.json')),
  'types.d.ts',
);

/** The top-level field names of `export interface <name> {` in a declaration file. */
function declaredFields(file: string, name: string): Set<string> {
  const lines = readFileSync(file, 'utf8').split('\n');
  const start = lines.findIndex((l) =>
    new RegExp(`^export interface ${name}(<[^>]*>)? \\{`).test(l),
  );
  expect(start, `${name} is declared in ${file}`).toBeGreaterThanOrEqual(0);
  const fields = new Set<string>();
  for (const line of lines.slice(start + 1)) {
    if (line.startsWith('}')) break;
    const m = /^ {4}(\w+)\??:/.exec(line);
    if (m !== null) fields.add(m[1]!);
  }
  return fields;
}

/** The bodies a pack's scenario for `eventType` rendered, parsed (Slack's form bodies decoded). */
async function rendered(
  pack: Pack & { events: { recordType: string } },
  scenarios: Readonly<Record<string, Scenario>>,
  eventType: string,
): Promise<Record<string, any>[]> {
  const world = openWorld({
    root: ':memory:',
    clock: new VirtualClock('2026-05-01T12:00:00Z'),
    seed: `fidelity-${eventType}`,
  });
  try {
    const twin = registerPack(world, pack);
    await scenarios[eventType]!({
      twin,
      target: { url: 'http://127.0.0.1:9/hooks', secret: 'whsec_fidelity' },
      data: undefined,
    });
    return (await twin.list(pack.events.recordType))
      .filter((d) => d.fields.eventType === eventType)
      .map((d) => {
        const body = String(d.fields.body);
        return JSON.parse(
          body.startsWith('payload=') ? new URLSearchParams(body).get('payload')! : body,
        ) as Record<string, any>;
      });
  } finally {
    await world.close();
  }
}

describe('Stripe, against stripe-node’s declarations', () => {
  it('a Product carries only fields Stripe declares (no attributes)', async () => {
    const declared = declaredFields(join(stripeTypes, 'resources', 'Products.d.ts'), 'Product');
    const [event] = await rendered(stripe.pack, stripe.scenarios, 'product.created');
    const product = event!.data.object as Record<string, unknown>;
    expect(product).not.toHaveProperty('attributes');
    expect(Object.keys(product).filter((k) => !declared.has(k))).toEqual([]);
  });

  it("a subscription's items and an invoice's lines are lists without total_count", async () => {
    const listFields = declaredFields(join(stripeTypes, 'lib.d.ts'), 'ApiList');
    expect([...listFields].sort()).toEqual(['data', 'has_more', 'object', 'url']);
    const [sub] = await rendered(stripe.pack, stripe.scenarios, 'customer.subscription.created');
    const [invoice] = await rendered(stripe.pack, stripe.scenarios, 'invoice.created');
    for (const list of [sub!.data.object.items, invoice!.data.object.lines]) {
      expect(list.object).toBe('list');
      expect(Object.keys(list).sort()).toEqual([...listFields].sort());
    }
  });
});

describe('GitHub, against its OpenAPI description', () => {
  it('a release carries immutable and updated_at, as webhooks_release requires', async () => {
    const types = readFileSync(octokitTypes, 'utf8');
    const block = types.slice(types.indexOf('    webhooks_release: {'));
    // both are required (no `?`) in GitHub's webhook release object
    expect(block.slice(0, block.indexOf('\n    };'))).toMatch(/\n {6}immutable: boolean;/);
    expect(block.slice(0, block.indexOf('\n    };'))).toMatch(/\n {6}updated_at: string \| null;/);
    for (const type of ['release.created', 'release.published']) {
      const [event] = await rendered(github.pack, github.scenarios, type);
      expect(event!.release).toMatchObject({
        immutable: false,
        updated_at: event!.release.created_at,
      });
    }
  });
});

describe('Slack, against Bolt’s BlockAction', () => {
  it('block_actions outside Enterprise Grid has no enterprise (Bolt: optional object, never null)', async () => {
    const declared = readFileSync(
      join(dirname(require.resolve('@slack/bolt')), 'types', 'actions', 'block-action.d.ts'),
      'utf8',
    );
    expect(declared).toMatch(/\n {4}enterprise\?: \{\n {8}id: string;/);
    const [payload] = await rendered(slack.pack, slack.scenarios, 'block_actions');
    expect(payload!.type).toBe('block_actions');
    expect(payload).not.toHaveProperty('enterprise');
    expect(payload!.is_enterprise_install).toBe(false);
  });
});
