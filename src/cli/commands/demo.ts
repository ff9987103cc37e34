// `twinworld demo`: the whole loop in seconds on an embedded world — vendor twins send signed
// webhooks to the ingress host on 127.0.0.1, routines run, a receiver fails once, a New York
// calendar fires — then every delivery, attempt, trigger decision, trace id and state hash.
import { runDemoWalk } from '../demo-walk.js';
import { type Command } from '../command.js';
import { printWalkReport, ROOT_NOTE, SEED_FLAG, walkSeed, withWalkRoot } from './walk.js';

const DEFAULT_SEED = 1;

export const demoCommand: Command = {
  name: 'demo',
  summary: 'Run the demo walk: twins → signed webhooks → ingress → routines, with a report',
  usage: 'demo [--seed N] [--root DIR | --store URL] [--json]',
  description: [
    'Starts the webhook ingress host on 127.0.0.1 and registers Stripe, GitHub and Slack endpoints',
    'pointing at it, then walks an hour of virtual time: two customers, a payment that fails then',
    'succeeds, a GitHub issue, a Slack mention, a receiver that fails once (so Stripe retries it),',
    'and a calendar trigger at 09:30 in New York. The ingress verifies every packet on the world',
    'clock and routes it to a routine. Prints each delivery with its attempts, each trigger',
    'decision, the trace ids and the state hashes; the same --seed always gives the same hashes.',
    ROOT_NOTE,
  ].join('\n'),
  arguments: [],
  positionals: { min: 0, max: 0 },
  options: {
    seed: SEED_FLAG,
  },
  jsonHelp:
    'print the report as one JSON object (deliveries, receivers, triggers, hashes, wall, ingress)',
  async run(args, io) {
    const seed = walkSeed(args, DEFAULT_SEED)!;
    return withWalkRoot(args, async (place, kept) => {
      const root = place.root;
      const { walk, triggers } = await runDemoWalk({
        seed,
        root,
        ...(place.backend === undefined ? {} : { backend: place.backend }),
      });
      try {
        const notes = [
          `Ingress host: ${triggers.host.url} (endpoints use ${triggers.baseUrl}ingress/demo/<vendor>; the walk routes that name to the host, so no port enters the log)`,
          kept
            ? `World kept at ${root} (try: twinworld deliveries ${place.flag})`
            : 'World: a temporary root, removed afterwards (--root DIR keeps it)',
          '',
          'Stripe, GitHub and Slack twins sent signed webhooks to the ingress, which verified each on the',
          'world clock and ran a routine. The "ledger" receiver failed once, so Stripe retried it about',
          '15 minutes later; at 09:30 in New York the "standup" calendar fired, and its routine posted',
          'to Slack — one more webhook. An hour of virtual time, in well under a second of real time.',
        ];
        await printWalkReport(
          io,
          args,
          walk,
          { title: 'twinworld demo', notes },
          { ingress: triggers.host.url, root: kept ? root : null },
        );
      } finally {
        await walk.close();
      }
      return 0;
    });
  },
};
