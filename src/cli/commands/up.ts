// `twinworld up`: the twin for an application under test — the host with every built-in pack's API
// surface on 127.0.0.1 (Stripe's at /v1/, Slack's at /api/, GitHub's at /github/), its own
// dispatcher sending the webhooks API calls cause, the control plane under /_twinworld/, on the
// embedded store or --store postgres://…. It prints the exact client lines to paste. See
// docs/stripe-surface.md and docs/github-surface.md.
import { builtInPacks } from '../../../packs/built-in.js';
import { githubPack } from '../../../packs/github/pack.js';
import { setGitHubOrigin } from '../../../packs/github/origin.js';
import { ensureSampleUser, SAMPLE_USER } from '../../../packs/github/recipes.js';
import { githubSurface, mintUserToken } from '../../../packs/github/surface/index.js';
import { slackPack } from '../../../packs/slack/pack.js';
import { slackSurface } from '../../../packs/slack/surface/index.js';
import { stripeSurface } from '../../../packs/stripe/surface/index.js';
import { registerPack } from '../../events/pack-registry.js';
import { mountConsole } from '../../host/console/mount.js';
import { newConsoleToken } from '../../host/console/token.js';
import { checkPortFree } from '../../host/listen-port.js';
import { advanceWorld, createHost, listen } from '../../host/index.js';
import { RealClock, VirtualClock } from '../../world/clock.js';
import { Worker } from '../../work/worker.js';
import { countOption, stringOption, UsageError, type Command } from '../command.js';
import { write } from '../output.js';
import { untilSignal } from '../signals.js';
import { openStoreWorld } from '../store.js';
import { checkStoreAnswers } from '../store-check.js';
import { deliveryWorkKinds } from '../work-kinds.js';

const DEFAULT_KEY = 'sk_test_twinworld';

export const upCommand: Command = {
  name: 'up',
  summary:
    "Serve the vendors' own APIs (Stripe /v1, Slack /api, GitHub /github) for an app under test",
  usage:
    'up [--port N] [--key sk_test_…] [--clock virtual|real] [--worker] [--root DIR | --store URL] [--json]',
  description: [
    'Starts the host on 127.0.0.1 with the Stripe surface at /v1/ and the control plane at /_twinworld/',
    '(health, surfaces, clock). Point the unmodified stripe package at it with the printed line; each',
    'sk_test_ key is its own account; --key (default sk_test_twinworld) is the built-in "stripe" twin the',
    'other commands see. Webhooks go to the endpoints the app creates (webhookEndpoints.create) after each',
    "answer, signed with the endpoint's whsec_ secret and retried on Stripe's schedule.",
    'The world clock is virtual by default, starting now: time moves only when a test clock advances or',
    'POST /_twinworld/clock {advance_ms|to} moves it, so renewals and retries run when you say. --clock',
    'real follows the wall clock (clock moves are then refused). --worker also runs the worker, which',
    'takes over deliveries another process left behind (it may start a queued delivery before the host',
    'has answered its request, which is why it is off by default).',
    'GitHub: point @octokit/rest at the printed baseUrl (<url>/github) with the printed token of the',
    'sample user octocat (made if missing); see docs/github-surface.md.',
  ].join('\n'),
  arguments: [],
  positionals: { min: 0, max: 0 },
  options: {
    port: {
      type: 'string',
      short: 'p',
      arg: 'N',
      value: { kind: 'count', max: 65535 },
      description: 'port on 127.0.0.1 (default 0: a free port, printed)',
    },
    key: {
      type: 'string',
      arg: 'KEY',
      value: { kind: 'text', nonEmpty: true },
      description: `the test key of the built-in stripe twin (default ${DEFAULT_KEY})`,
    },
    clock: {
      type: 'string',
      arg: 'virtual|real',
      value: { kind: 'choice', choices: ['virtual', 'real'] },
      description: 'the world clock (default virtual, starting now)',
    },
    worker: { type: 'boolean', description: 'also run the worker beside the host' },
  },
  jsonHelp:
    'print one JSON object per line: {"event":"listening","url","port","stripe":{...}} first, then "stopping" and "stopped"',
  async run(args, io) {
    const port = countOption(args, 'port') ?? 0;
    if (port > 65535) throw new UsageError(`--port must be 0–65535, got ${port}`);
    const key = stringOption(args, 'key') ?? DEFAULT_KEY;
    if (!/^sk_test_[A-Za-z0-9_]{1,240}$/.test(key))
      throw new UsageError(
        '--key must be a Stripe test secret key: sk_test_ followed by letters, digits or _',
      );
    const clockKind = stringOption(args, 'clock') ?? 'virtual';
    if (clockKind !== 'virtual' && clockKind !== 'real')
      throw new UsageError(`--clock must be virtual or real, got "${clockKind}"`);
    // Before the world opens: a port in use refuses the start without creating a root.
    await checkPortFree(port);
    const world = await openStoreWorld(args.store, {
      clock: clockKind === 'real' ? new RealClock() : new VirtualClock(new RealClock().now()),
    });
    try {
      await checkStoreAnswers(world);
    } catch (error) {
      await world.close().catch(() => {});
      throw error;
    }
    for (const pack of builtInPacks) registerPack(world, pack);
    const host = createHost({ world });
    host.serve(
      stripeSurface({
        packTwin: (pack) => host.packTwin(pack),
        primaryKey: key,
        advanceClock: (to) => advanceWorld(host, to),
      }),
    );
    host.serve(slackSurface({ twin: host.packTwin(slackPack) }));
    const github = host.packTwin(githubPack);
    host.serve(githubSurface({ twin: github, redeliver: (id) => host.dispatcher.redeliver(id) }));
    // The console rides on the same host and clock; its token is printed once, below.
    const consoleToken = newConsoleToken();
    const console_ = mountConsole(host, {
      world,
      dispatcher: host.dispatcher,
      token: consoleToken,
    });
    let listening;
    try {
      listening = await listen(host, { port });
    } catch (error) {
      await host.close();
      await world.close().catch(() => {});
      throw error;
    }
    // Octokit's baseUrl, recorded so webhook payloads carry it too; a token for the sample user.
    const githubBase = `${listening.url}/github`;
    let githubLine: string;
    try {
      await setGitHubOrigin(github, githubBase);
      await ensureSampleUser(github);
      githubLine = `new Octokit({ auth: '${await mintUserToken(github, SAMPLE_USER)}', baseUrl: '${githubBase}' })`;
    } catch (error) {
      // The listener would otherwise keep the process alive after the refusal is printed.
      await console_.close().catch(() => {});
      await listening.close().catch(() => {});
      await host.close().catch(() => {});
      await world.close().catch(() => {});
      throw error;
    }
    const worker =
      args.values.worker === true
        ? new Worker(world, deliveryWorkKinds(host.dispatcher))
        : undefined;
    worker?.start();
    const consoleUrl = `${listening.url}/_twinworld/console/?token=${consoleToken}`;
    const clientLine = `new Stripe('${key}', { host: '127.0.0.1', port: ${listening.port}, protocol: 'http' })`;
    const signal = untilSignal();
    if (args.json)
      await write(
        io.stdout,
        `${JSON.stringify({
          event: 'listening',
          url: listening.url,
          port: listening.port,
          store: args.store.label,
          clock: clockKind,
          stripe: { client: clientLine, apiBase: `${listening.url}/v1` },
          slack: { slackApiUrl: `${listening.url}/api/` },
          github: { client: githubLine, baseUrl: githubBase, user: SAMPLE_USER },
          console: consoleUrl,
          control: `${listening.url}/_twinworld/`,
        })}\n`,
      );
    else
      await write(
        io.stdout,
        [
          `listening on ${listening.url} (store ${args.store.label}, ${clockKind} clock)`,
          `  stripe:  ${clientLine}`,
          `           Stripe CLI: --api-base ${listening.url}`,
          `  webhooks: create an endpoint from your app (stripe.webhookEndpoints.create({ url, enabled_events: ['*'] }))`,
          `            and verify with the whsec_ secret it returns`,
          `  slack:   new WebClient('xoxb-<app id>-x', { slackApiUrl: '${listening.url}/api/' })`,
          `           an app: twinworld endpoints add slack --url <Request URL> (same store) prints its id`,
          `  github:  ${githubLine}  (as ${SAMPLE_USER})`,
          `  console: ${consoleUrl}`,
          `  control: ${listening.url}/_twinworld/clock (GET; POST {"advance_ms":N} moves the world clock)`,
          '',
        ].join('\n'),
      );
    const received = await signal;
    await write(
      io.stdout,
      args.json
        ? `${JSON.stringify({ event: 'stopping', signal: received })}\n`
        : `${received}: stopping\n`,
    );
    await worker?.stop();
    await console_.close();
    await listening.close();
    await host.idle();
    await host.close();
    await world.close();
    await write(io.stdout, args.json ? `${JSON.stringify({ event: 'stopped' })}\n` : 'stopped\n');
    return 0;
  },
};
