// `twinworld console`: serves the console page (src/host/console/) for a world on any store, on
// 127.0.0.1, with a token printed at start; runs until SIGINT/SIGTERM. See docs/console.md.
import { builtInPacks } from '../../../packs/built-in.js';
import { Dispatcher } from '../../events/dispatcher.js';
import { registerPack } from '../../events/pack-registry.js';
import { createConsoleHandler } from '../../host/console/handler.js';
import { newConsoleToken } from '../../host/console/token.js';
import { serveFetch } from '../../host/node-http.js';
import { RealClock, VirtualClock, type Clock } from '../../world/clock.js';
import { countOption, stringOption, UsageError, type Command } from '../command.js';
import { write } from '../output.js';
import { untilSignal } from '../signals.js';
import { openStoreWorld } from '../store.js';
import { checkStoreAnswers } from '../store-check.js';

function clockOption(raw: string | undefined): Clock {
  if (raw === undefined) return new RealClock();
  const at = Date.parse(raw);
  if (!Number.isFinite(at))
    throw new UsageError(
      `--clock must be an ISO 8601 time such as 2026-03-01T09:00:00Z, got "${raw}"`,
    );
  return new VirtualClock(at);
}

export const consoleCommand: Command = {
  name: 'console',
  summary: 'Serve the live console page for a world (127.0.0.1, token printed)',
  usage: 'console [--port N] [--clock ISO] [--poll MS] [--root DIR | --store URL] [--json]',
  description: [
    'Serves a page on 127.0.0.1 showing the world as it happens: twins with head, chain and state',
    'hash; resources and the entries that made them; deliveries with their attempts and headers;',
    'endpoints and their recent success; trigger records; schedules and their ledger; deferred',
    'dispatches; the clock. It follows the log heads of every process on the store and updates',
    'live. Its actions (redeliver, disable/enable an endpoint, cancel a dispatch, pause/resume a',
    "schedule, advance a virtual clock) are the CLI commands' own atomic actions. Every request",
    'needs the token printed at start. --clock runs this process on a virtual clock at ISO.',
  ].join('\n'),
  arguments: [],
  positionals: { min: 0, max: 0 },
  options: {
    port: {
      type: 'string',
      value: { kind: 'count', max: 65_535 },
      short: 'p',
      arg: 'N',
      description: 'port on 127.0.0.1 (default, or 0: a free one)',
    },
    clock: {
      type: 'string',
      value: { kind: 'time' },
      arg: 'ISO',
      description: 'run on a virtual clock starting at ISO',
    },
    poll: {
      type: 'string',
      value: { kind: 'count', min: 1 },
      arg: 'MS',
      description: 'how often the log heads are read (default 100)',
    },
  },
  jsonHelp: 'print {"url", "origin", "token", "store"} as one JSON line once listening',
  async run(args, io) {
    const port = countOption(args, 'port');
    const pollMs = countOption(args, 'poll');
    if (pollMs === 0) throw new UsageError('--poll must be at least 1 ms');
    const clock = clockOption(stringOption(args, 'clock'));
    // Listening from the start: a Ctrl-C while starting up still ends in the orderly stop below.
    const stopped = untilSignal();
    const world = await openStoreWorld(args.store, { clock, create: false });
    try {
      await checkStoreAnswers(world);
      for (const pack of builtInPacks) registerPack(world, pack);
      const dispatcher = new Dispatcher(world, { autoDispatch: false });
      const token = newConsoleToken();
      const handler = createConsoleHandler({
        world,
        dispatcher,
        token,
        ...(pollMs === undefined ? {} : { pollMs }),
      });
      const host = await serveFetch((r) => handler.fetch(r), {
        ...(port === undefined ? {} : { port }),
        onError: (e) => world.reportError(e, 'console'),
      });
      const url = `${host.origin}/?token=${token}`;
      await write(
        io.stdout,
        args.json
          ? `${JSON.stringify({ url, origin: host.origin, token, store: args.store.label })}\n`
          : `console for ${args.store.label}\n  open  ${url}\n  token ${token}\n(Ctrl-C stops it)\n`,
      );
      await stopped;
      await handler.close();
      await host.close();
      await dispatcher.close();
    } finally {
      await world.close();
    }
    return 0;
  },
};
