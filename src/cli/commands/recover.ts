// `twinworld recover` and `twinworld redeliver`: the operator's side of the send-once protocol.
// Recovery settles what a crash left; redeliver is the only way a settled delivery is sent again.
import { countOption, stringOption, type Command } from '../command.js';
import { printJson, write } from '../output.js';
import { withPackWorld } from '../pack-world.js';

export const recoverCommand: Command = {
  name: 'recover',
  summary: 'Settle deliveries a crash left behind',
  usage: 'recover [--stale-after MS] [--root DIR | --store URL] [--json]',
  description: [
    'Runs what is due once and says what it left: dispatches records still queued (never attempted),',
    'runs retries whose time has come, and marks a record found sending as unknown (never resent',
    "blindly) only when its sender's lease lapsed — a send in flight in a live process is left alone.",
    'Safe at any time, from any process, while others work. Retries due later are listed with their',
    'time (a running `twinworld work` sends them). --stale-after applies to records claimed before',
    'claims carried leases: their attempt must have started at least MS ms ago (default 30000).',
  ].join('\n'),
  arguments: [],
  positionals: { min: 0, max: 0 },
  options: {
    'stale-after': {
      type: 'string',
      value: { kind: 'count' },
      arg: 'MS',
      description:
        'for records claimed without a lease: attempts started at least MS ms ago\nbecome unknown (default 30000)',
    },
  },
  jsonHelp:
    'print {"markedUnknown": [...], "dispatched": [...], "retried": [...], "scheduled": [{deliveryId, at}], "inFlight": [{deliveryId, owner, leaseUntil}], "scheduledRetries": n}',
  async run(args, io) {
    const staleAfterMs = countOption(args, 'stale-after');
    return withPackWorld(
      args.store,
      async (_world, dispatcher) => {
        const report = await dispatcher.recover(staleAfterMs === undefined ? {} : { staleAfterMs });
        await dispatcher.idle();
        if (args.json) await printJson(io, report);
        else {
          await write(
            io.stdout,
            `marked unknown: ${report.markedUnknown.length}${report.markedUnknown.length ? ` (${report.markedUnknown.join(', ')})` : ''}\n`,
          );
          await write(io.stdout, `dispatched: ${report.dispatched.length}\n`);
          for (const r of report.dispatched)
            await write(
              io.stdout,
              `  ${r.deliveryId}  ${r.outcome}  ${r.status ?? '-'}  ${r.reason}\n`,
            );
          await write(io.stdout, `retries run: ${report.retried.length}\n`);
          for (const r of report.retried)
            await write(
              io.stdout,
              `  ${r.deliveryId}  attempt ${r.number}  ${r.outcome}  ${r.status ?? '-'}  ${r.reason}\n`,
            );
          await write(io.stdout, `retries left scheduled: ${report.scheduled.length}\n`);
          for (const r of report.scheduled)
            await write(io.stdout, `  ${r.deliveryId}  due ${r.at}\n`);
          if (report.inFlight.length > 0) {
            await write(
              io.stdout,
              `in flight under a live lease (left alone): ${report.inFlight.length}\n`,
            );
            for (const r of report.inFlight)
              await write(
                io.stdout,
                `  ${r.deliveryId}  owner ${r.owner ?? '-'}  lease until ${r.leaseUntil ?? '-'}\n`,
              );
          }
        }
        return 0;
      },
      { create: false },
    );
  },
};

export const redeliverCommand: Command = {
  name: 'redeliver',
  summary: "Send one delivery again (an operator's explicit new attempt)",
  usage: 'redeliver <delivery> [--to URL] [--root DIR | --store URL] [--json]',
  description:
    'Makes a new, numbered, freshly signed attempt of <delivery> and prints its outcome.\nRefused (NOT_CLAIMABLE) while an attempt of it is in flight. --to sends this one attempt\nto another URL (kept on the attempt); the record and its endpoint keep their own.',
  arguments: [['<delivery>', 'delivery id, e.g. dlv_…']],
  positionals: { min: 1, max: 1 },
  options: {
    to: {
      type: 'string',
      value: { kind: 'url' },
      arg: 'URL',
      description: 'send this attempt to URL instead',
    },
  },
  jsonHelp:
    'print the attempt result {deliveryId, attemptId, number, outcome, status, reason, state, durationMs}',
  async run(args, io) {
    const [id] = args.positionals as [string];
    const to = stringOption(args, 'to');
    return withPackWorld(
      args.store,
      async (_world, dispatcher) => {
        const result = await dispatcher.redeliver(id, to === undefined ? {} : { to });
        if (args.json) await printJson(io, result);
        else
          await write(
            io.stdout,
            `${result.deliveryId} attempt ${result.number}: ${result.outcome} ${result.status ?? '-'} (${result.reason}) in ${result.durationMs.toFixed(1)} ms — state ${result.state}\n`,
          );
        return result.outcome === 'succeeded' ? 0 : 1;
      },
      { create: false },
    );
  },
};
