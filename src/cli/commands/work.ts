// `twinworld work`: the worker (docs/work.md) for the twins at a root. It claims due work of every
// kind from every process's writes — queued deliveries, retries that fell due, claims whose owner
// died — runs it, heartbeats, and finishes it; several `work` processes share the work safely.
import { workKinds } from '../work-kinds.js';
import { DISPATCH_CONCURRENCY } from '../../events/dispatcher.js';
import { Worker, WORKER_CONCURRENCY, type ScheduledLater } from '../../work/worker.js';
import type { WorkReport } from '../../work/work-kind.js';
import { countOption, type CliIO, type Command } from '../command.js';
import { secondsFlag } from '../flags.js';
import { write } from '../output.js';
import { withPackWorld } from '../pack-world.js';
import { untilSignal } from '../signals.js';
import { checkStoreAnswers } from '../store-check.js';

class StatusLine {
  private last = '';
  constructor(private readonly io: CliIO) {}
  async show(text: string): Promise<void> {
    if (text === this.last) return;
    this.last = text;
    await write(this.io.stdout, `\r\u001b[2K${text}`);
  }
}

/** What an idle-now run left for later, one line per kind; nothing when nothing is scheduled. */
function laterLines(later: readonly ScheduledLater[] | undefined): string {
  if (later === undefined) return '';
  if (later.length === 0) return 'nothing scheduled later\n';
  return later.map((l) => `scheduled later: ${l.kind} at ${l.at}\n`).join('');
}

export const workCommand: Command = {
  name: 'work',
  summary: 'Run the worker: send queued deliveries, due retries, take over lapsed claims',
  usage:
    'work [--concurrency N] [--claim-ahead N] [--lease S] [--until-idle] [--root DIR | --store URL] [--json]',
  description: [
    "Claims due work from every process's writes at the root and runs it: queued deliveries, retries",
    'whose time came, schedule occurrences that came (`twinworld schedules`), and claims whose owner',
    'stopped heartbeating (a send in flight when its process died becomes unknown — never resent',
    'blindly; a schedule run is run again). It notices new work within about 100 ms of its',
    'commit by watching the log heads. Several `work` processes share the work; none does a piece twice.',
    '--until-idle exits once nothing is due now and nothing is in flight (a send or run under a live',
    'lease, here or in another process: it waits for that to finish or lapse). Work scheduled later — a',
    "retry, a schedule's next occurrence — does not hold it: it prints the earliest time of each kind.",
    'SIGINT/SIGTERM: stop claiming, finish what it holds, exit 0.',
    'On a terminal it keeps one status line (claimed, sent, failed, retrying); --json prints one JSON',
    'object per finished item: {"event":"done","kind","id","outcome","detail"}.',
  ].join('\n'),
  arguments: [],
  positionals: { min: 0, max: 0 },
  options: {
    concurrency: {
      type: 'string',
      value: { kind: 'count', min: 1 },
      arg: 'N',
      description: 'items run at once (default 8)',
    },
    'claim-ahead': {
      type: 'string',
      value: { kind: 'count', min: 0 },
      arg: 'N',
      description:
        'deliveries claimed beyond the free slots, sent the moment a slot frees (default 0; helps with slow endpoints)',
    },
    lease: {
      type: 'string',
      value: { kind: 'seconds' },
      arg: 'S',
      description: 'seconds a claim lasts without a heartbeat (default 30)',
    },
    'until-idle': {
      type: 'boolean',
      description: 'exit when nothing is due now or in flight; print what is scheduled later',
    },
  },
  jsonHelp:
    'print one JSON object per line: {"event":"started","owner"}, one {"event":"done",…} per item, {"event":"stopped",…} (with --until-idle, "later": [{"kind","at"}])',
  async run(args, io) {
    const concurrency = countOption(args, 'concurrency');
    const claimAhead = countOption(args, 'claim-ahead');
    const leaseMs = secondsFlag(args.values, 'lease');
    const untilIdle = args.values['until-idle'] === true;
    return withPackWorld(
      args.store,
      async (world, dispatcher) => {
        await checkStoreAnswers(world);
        const status = io.isTTY.stdout && !args.json ? new StatusLine(io) : undefined;
        const counts = { claimed: 0, sent: 0, failed: 0, retrying: 0, unknown: 0 };
        const shown = (): string =>
          `claimed ${counts.claimed}  sent ${counts.sent}  failed ${counts.failed}  retrying ${counts.retrying}  unknown ${counts.unknown}`;
        let pending: Promise<void> = Promise.resolve();
        const emit = (fn: () => Promise<void>): void => {
          pending = pending
            .then(fn)
            .catch((error: unknown) => world.reportError(error, 'work output'));
        };
        const onReport = (r: WorkReport): void => {
          // A report comes only from a claim won: an item another worker took reports nothing.
          counts.claimed++;
          if (r.outcome === 'succeeded') counts.sent++;
          else if (r.outcome === 'failed' || r.outcome === 'cancelled' || r.outcome === 'refused')
            counts.failed++;
          else if (r.outcome === 'retrying') counts.retrying++;
          else if (r.outcome === 'unknown' || r.outcome === 'stale') counts.unknown++;
          if (args.json)
            emit(() =>
              write(
                io.stdout,
                `${JSON.stringify({ event: 'done', kind: r.kind, id: r.id, outcome: r.outcome, detail: r.detail ?? null })}\n`,
              ),
            );
          else if (status !== undefined) emit(() => status.show(shown()));
        };
        const worker = new Worker(
          world,
          workKinds(dispatcher, leaseMs === undefined ? {} : { leaseMs }),
          {
            owner: dispatcher.owner,
            ...(concurrency === undefined ? {} : { concurrency }),
            ...(claimAhead === undefined ? {} : { claimAhead }),
            ...(leaseMs === undefined ? {} : { leaseMs }),
            onReport,
          },
        );
        emit(() =>
          write(
            io.stdout,
            args.json
              ? `${JSON.stringify({ event: 'started', owner: worker.owner, root: world.root })}\n`
              : `working as ${worker.owner} (root ${world.root})\n`,
          ),
        );
        let signal: NodeJS.Signals | undefined;
        let later: ScheduledLater[] | undefined;
        if (untilIdle) {
          const stop = untilSignal().then((s) => {
            signal = s;
            return worker.stop();
          });
          await Promise.race([
            worker.runUntilIdle({ waitForScheduled: false }).then((l) => (later = l)),
            stop,
          ]);
        } else {
          worker.start();
          signal = await untilSignal();
          await worker.stop();
        }
        await worker.stop();
        await dispatcher.idle();
        await pending;
        const summary = {
          event: 'stopped',
          ...counts,
          ...(signal === undefined ? {} : { signal }),
          ...(later === undefined ? {} : { later }),
        };
        await write(
          io.stdout,
          args.json
            ? `${JSON.stringify(summary)}\n`
            : `${status !== undefined ? '\n' : ''}${signal ?? 'idle'}: stopped — ${shown()}\n${laterLines(later)}`,
        );
        return 0;
      },
      {
        // A worker serves a world that exists: a mistyped root is refused, not made.
        create: false,
        dispatcher: {
          autoDispatch: false,
          ...(leaseMs === undefined ? {} : { leaseMs }),
          // Its slots bound the claims in flight: room for the worker's and the ones claimed ahead.
          concurrency: Math.max(
            DISPATCH_CONCURRENCY,
            (concurrency ?? WORKER_CONCURRENCY) + (claimAhead ?? 0),
          ),
        },
      },
    );
  },
};
