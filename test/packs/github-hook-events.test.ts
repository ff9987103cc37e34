// The webhook event names a GitHub hook may subscribe to: at least every event
// @octokit/webhooks-schemas describes, so the twin never refuses a name GitHub takes.
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { GITHUB_HOOK_EVENTS } from '../../packs/github/hook-events.js';

const schema = createRequire(import.meta.url)('@octokit/webhooks-schemas/schema.json') as {
  definitions: Record<string, unknown>;
};

describe('GitHub webhook event names', () => {
  it('holds every event of @octokit/webhooks-schemas', () => {
    const names = new Set(
      Object.keys(schema.definitions)
        .map((k) => /^([a-z0-9_]+?)(_event|\$.*)$/.exec(k)?.[1])
        .filter((n): n is string => n !== undefined),
    );
    expect(names.size).toBeGreaterThan(60);
    expect([...names].filter((n) => !GITHUB_HOOK_EVENTS.has(n))).toEqual([]);
    expect(GITHUB_HOOK_EVENTS.has('bogus')).toBe(false);
  });
});
