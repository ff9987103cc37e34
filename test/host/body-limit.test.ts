// A request body over the port's 1 MiB cap, over real HTTP: each vendor surface refuses it in its
// own envelope (what its SDK reads), a path no surface serves gets the kernel's 413, and the
// connection is closed (the rest of the body was never read). stripe-node's view of it is in
// stripe-wire-sdk.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtInPacks } from '../../packs/built-in.js';
import { githubPack } from '../../packs/github/pack.js';
import { githubSurface } from '../../packs/github/surface/index.js';
import { slackPack } from '../../packs/slack/pack.js';
import { slackSurface } from '../../packs/slack/surface/index.js';
import { stripeSurface } from '../../packs/stripe/surface/index.js';
import { registerPack } from '../../src/events/pack-registry.js';
import { advanceWorld, createHost, listen, type Listening } from '../../src/host/index.js';
import { MAX_BODY_BYTES } from '../../src/host/request-body.js';
import { VirtualClock } from '../../src/world/clock.js';
import { openWorld, type World } from '../../src/world/world.js';

describe('a request body over the cap', () => {
  let world: World;
  let listening: Listening;
  const huge = 'x'.repeat(MAX_BODY_BYTES + 1);
  const post = (path: string, headers: Record<string, string> = {}) =>
    fetch(`${listening.url}${path}`, { method: 'POST', body: huge, headers });

  beforeAll(async () => {
    world = openWorld({ root: ':memory:', clock: new VirtualClock(Date.parse('2026-07-01')) });
    for (const pack of builtInPacks) registerPack(world, pack);
    const host = createHost({ world });
    host.serve(
      stripeSurface({
        packTwin: (pack) => host.packTwin(pack),
        advanceClock: (to) => advanceWorld(host, to),
      }),
    );
    host.serve(slackSurface({ twin: host.packTwin(slackPack) }));
    const github = host.packTwin(githubPack);
    host.serve(githubSurface({ twin: github, redeliver: (id) => host.dispatcher.redeliver(id) }));
    listening = await listen(host);
  });
  afterAll(async () => {
    await listening?.close();
    await world?.close();
  });

  it("Stripe: a 400 invalid_request_error in Stripe's envelope, naming the limit", async () => {
    const res = await post('/v1/customers', {
      authorization: 'Bearer sk_test_bodyLimit',
      'content-type': 'application/x-www-form-urlencoded',
    });
    expect(res.status).toBe(400);
    expect(res.headers.get('connection')).toBe('close');
    expect(res.headers.get('request-id')).toMatch(/^req_/);
    expect(await res.json()).toEqual({
      error: {
        type: 'invalid_request_error',
        message: `The request body is larger than ${MAX_BODY_BYTES} bytes (1 MiB), the most this twin reads; send less.`,
      },
    });
  });

  it("GitHub: a 413 in GitHub's envelope", async () => {
    const res = await post('/github/repos/o/r/issues', { authorization: 'Bearer ghp_x' });
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({
      message: `Payload Too Large: request bodies are at most ${MAX_BODY_BYTES} bytes on this twin`,
      documentation_url: 'https://docs.github.com/rest',
    });
  });

  it("Slack: a 413 with Slack's {ok: false, error}", async () => {
    const res = await post('/api/chat.postMessage', { authorization: 'Bearer xoxb-x' });
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({ ok: false, error: 'request_too_large' });
  });

  it("elsewhere: the kernel's 413", async () => {
    for (const path of ['/nowhere', '/_twinworld/clock']) {
      const res = await post(path);
      expect(res.status).toBe(413);
      expect(await res.json()).toEqual({
        error: {
          code: 'PAYLOAD_TOO_LARGE',
          message: `request bodies are at most ${MAX_BODY_BYTES} bytes`,
        },
      });
    }
  });
});
