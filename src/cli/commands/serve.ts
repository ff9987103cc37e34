// `twinworld serve`: the webhook ingress host on 127.0.0.1 — POST /ingress/<tenant>/<provider> —
// configured from a file or from `--endpoint provider=ENV_VAR` flags, recovering unfinished
// trigger records at startup, ticking calendars, and stopping gracefully on SIGINT/SIGTERM.
import { RealClock } from '../../world/clock.js';
import { openStoreWorld } from '../store.js';
import { configFromFlags, loadServeConfig } from '../../host/serve/config.js';
import { startServe } from '../../host/serve/serve.js';
import { checkPortFree } from '../../host/listen-port.js';
import { checkLimits, type IngressLimits } from '../../host/ingress/connections.js';
import type { ServeConfig } from '../../host/serve/config.js';
import {
  countOption,
  stringOption,
  UsageError,
  type CliIO,
  type Command,
  type ParsedArgs,
} from '../command.js';
import { secondsFlag } from '../flags.js';
import { write } from '../output.js';
import { untilSignal } from '../signals.js';
import { Worker } from '../../work/worker.js';
import { serveWorkKinds } from '../work-kinds.js';

const DEFAULT_TICK_SECONDS = 60;

/** --max-connections, --headers-timeout, --body-timeout and --retention-days over the configuration. */
function withFlags(config: ServeConfig, args: ParsedArgs): ServeConfig {
  const limits: Partial<Record<keyof IngressLimits, number>> = {};
  const maxConnections = countOption(args, 'max-connections');
  const headers = countOption(args, 'headers-timeout');
  const body = countOption(args, 'body-timeout');
  if (maxConnections !== undefined) limits.maxConnections = maxConnections;
  if (headers !== undefined) limits.headersTimeoutSec = headers;
  if (body !== undefined) limits.bodyTimeoutSec = body;
  const days = countOption(args, 'retention-days');
  return {
    ...config,
    limits: checkLimits({ ...config.limits, ...limits }),
    retentionDays: days ?? config.retentionDays,
  };
}

function endpoints(args: ParsedArgs): string[] {
  const raw = args.values.endpoint as unknown;
  if (raw === undefined) return [];
  return (Array.isArray(raw) ? raw : [raw]).filter((v): v is string => typeof v === 'string');
}

async function line(
  io: CliIO,
  json: boolean,
  value: Record<string, unknown>,
  text: string,
): Promise<void> {
  await write(io.stdout, json ? `${JSON.stringify(value)}\n` : `${text}\n`);
}

export const serveCommand: Command = {
  name: 'serve',
  summary: 'Take webhooks in as durable, deduplicated triggers over HTTP',
  usage:
    'serve (--endpoint PROVIDER=ENV_VAR ... | --config FILE) [--port N] [--tick-every S] [--max-connections N] [--headers-timeout S] [--body-timeout S] [--retention-days D] [--lease S] [--root DIR | --store URL] [--json]',
  description: [
    'Serves POST /ingress/<tenant>/<provider> on 127.0.0.1: each packet is verified against its raw',
    "bytes with the provider's signature scheme and a 300 s timestamp window, then ingested with the",
    "provider's delivery id as dedupe key. Answers 200 (triggered, filtered, duplicate, with the answer",
    'as JSON), 409 + Retry-After (in progress), 401 (bad signature, stale timestamp, missing header),',
    '400 (body not JSON), 404 (unknown tenant or provider), 413 (body over 256 KiB), 422 (same delivery',
    'id, other payload), 500 (the routine did not finish; retry), 503 (shutting down).',
    'With --endpoint (repeatable) tenant "default" gets one endpoint per provider, its secret read from',
    'ENV_VAR, and every event goes to the built-in "record" routine, which records what it received.',
    'PROVIDER is stripe, github, slack, standard-webhooks or hmac-sha256, or NAME:SCHEME for another',
    'name. --config FILE holds tenants, endpoints, calendars and routes (see src/triggers/README.md).',
    'The first line printed names the URL. At startup, records a crash left processing or failed run',
    'again. On SIGINT/SIGTERM: stop intake, wait for in-flight work, stop the engine, close the store.',
    'Bounded: at most --max-connections open (default 1024; at the cap the oldest idle one is closed),',
    'headers within --headers-timeout seconds (10), bodies within --body-timeout (30). Every secret is',
    'checked at startup. Refused packets are counted per source and minute, not kept one by one;',
    'with --retention-days, settled trigger history older than that is pruned hourly.',
    '--lease S: how long a routine run or a dispatch claim lasts without a heartbeat (default 30 s);',
    'a run whose process died is taken over by another worker that long after its last beat.',
  ].join('\n'),
  arguments: [],
  positionals: { min: 0, max: 0 },
  options: {
    endpoint: {
      type: 'string',
      value: { kind: 'text', nonEmpty: true },
      multiple: true,
      arg: 'PROVIDER=ENV_VAR',
      description:
        'an endpoint of tenant "default", e.g. stripe=STRIPE_WEBHOOK_SECRET (repeatable)',
    },
    config: {
      type: 'string',
      value: { kind: 'text', nonEmpty: true },
      short: 'c',
      arg: 'FILE',
      description: 'a JSON configuration file instead of --endpoint flags',
    },
    port: {
      type: 'string',
      value: { kind: 'count', max: 65535 },
      short: 'p',
      arg: 'N',
      description: 'port on 127.0.0.1 (default 0: a free port, printed first)',
    },
    'tick-every': {
      type: 'string',
      value: { kind: 'count' },
      arg: 'S',
      description: `tick calendars every S seconds (default ${DEFAULT_TICK_SECONDS}; 0: never)`,
    },
    'max-connections': {
      type: 'string',
      value: { kind: 'count', min: 1 },
      arg: 'N',
      description: 'open connections at most (default 1024)',
    },
    'headers-timeout': {
      type: 'string',
      value: { kind: 'count', min: 1 },
      arg: 'S',
      description: 'seconds a connection has to send complete headers (default 10)',
    },
    'body-timeout': {
      type: 'string',
      value: { kind: 'count', min: 1 },
      arg: 'S',
      description: 'seconds a request has to send its body (default 30)',
    },
    'retention-days': {
      type: 'string',
      value: { kind: 'count', min: 1 },
      arg: 'D',
      description: 'prune settled trigger history older than D days (default: keep it)',
    },
    lease: {
      type: 'string',
      value: { kind: 'seconds' },
      arg: 'S',
      description: 'seconds a routine run or dispatch claim lasts without a heartbeat (default 30)',
    },
    'no-worker': {
      type: 'boolean',
      description:
        "do not run the worker beside the ingress (it takes over runs whose\nowner's lease lapsed; run `twinworld work` elsewhere instead)",
    },
  },
  jsonHelp:
    'print one JSON object per line: {"event":"listening","url",...} first, then "stopping" and "stopped"',
  async run(args, io) {
    const flags = endpoints(args);
    const file = stringOption(args, 'config');
    if (flags.length > 0 && file !== undefined)
      throw new UsageError('give either --endpoint flags or --config FILE, not both');
    if (flags.length === 0 && file === undefined)
      throw new UsageError(
        'give at least one --endpoint PROVIDER=ENV_VAR (e.g. stripe=STRIPE_WEBHOOK_SECRET), or --config FILE',
      );
    const port = countOption(args, 'port') ?? 0;
    const leaseMs = secondsFlag(args.values, 'lease');
    const tickSeconds = countOption(args, 'tick-every') ?? DEFAULT_TICK_SECONDS;
    // Validated before the world opens: a bad configuration leaves no folder behind.
    const config = withFlags(
      file !== undefined ? loadServeConfig(file) : configFromFlags(flags),
      args,
    );
    await checkPortFree(port);
    const world = await openStoreWorld(args.store, { clock: new RealClock() });
    let serve;
    try {
      serve = await startServe({
        world,
        config,
        port,
        tickEveryMs: tickSeconds * 1000,
        ...(leaseMs === undefined ? {} : { leaseMs }),
      });
    } catch (error) {
      await world.close().catch(() => {});
      throw error;
    }
    const signal = untilSignal();
    // The worker beside the ingress: runs another process left behind when its lease lapsed.
    const worker =
      args.values['no-worker'] === true
        ? undefined
        : new Worker(world, serveWorkKinds(serve), {
            owner: serve.engine.claimant.owner,
            leaseMs: serve.engine.claimant.leaseMs,
          });
    worker?.start();
    const urls = config.tenants.flatMap((t) =>
      t.endpoints.map((e) => ({
        tenant: t.id,
        provider: e.provider,
        scheme: e.scheme,
        triggerId: e.triggerId,
        url: `${serve.host.url}/ingress/${t.id}/${e.provider}`,
      })),
    );
    const recovered = serve.recovered.reduce((n, r) => n + r.recovered.length, 0);
    await line(
      io,
      args.json,
      {
        event: 'listening',
        url: serve.host.url,
        port: serve.host.port,
        root: world.root,
        endpoints: urls,
        recovered,
        leaseSeconds: serve.engine.claimant.leaseMs / 1000,
      },
      `listening on ${serve.host.url} (root ${world.root})`,
    );
    if (!args.json) {
      for (const u of urls)
        await write(io.stdout, `  POST ${u.url}  (${u.scheme}, trigger ${u.triggerId})\n`);
      if (recovered > 0)
        await write(io.stdout, `  recovered ${recovered} unfinished trigger record(s)\n`);
    }
    const received = await signal;
    await line(
      io,
      args.json,
      { event: 'stopping', signal: received },
      `${received}: stopping (waiting for in-flight requests)`,
    );
    await worker?.stop();
    await serve.close();
    await line(io, args.json, { event: 'stopped' }, 'stopped');
    return 0;
  },
};
