// `twinworld trigger`: like `stripe trigger` — makes the vendor writes that produce an event in
// the twin (for customer.created, a customer is created; for invoice.paid, the customer, card,
// plan and subscription whose first invoice is paid), so fan-out queues one delivery per
// endpoint that takes each event. It prints the deliveries queued and exits: a running
// `twinworld work` sends them. `--wait` sends them from this process and prints each outcome.
import { TwinError } from '../../errors.js';
import type { AttemptResult, Dispatcher } from '../../events/dispatcher.js';
import { getPack, packTwinName, type EventTrigger } from '../../events/pack-registry.js';
import { attemptId, attemptType } from '../../events/delivery-records.js';
import type { World } from '../../world/world.js';
import { countOption, stringOption, UsageError, type Command } from '../command.js';
import { printJson, statusLine, Table, write } from '../output.js';
import { cliPack, cliPacks, DATA_EXAMPLE, watchQueued, type QueuedDelivery } from '../pack-cli.js';
import { withPackWorld } from '../pack-world.js';
import { jsonObjectFlag } from '../flags.js';
import { dataKeyRefusal } from '../../../packs/kit/cli.js';
import { noteSignal, signalExitCode } from '../signals.js';

/**
 * The most runs one `trigger` makes. Each run writes resources and a delivery per endpoint: an
 * unbounded --count grew a root to gigabytes; 10,000 is far beyond any test fixture's need and
 * takes seconds to a few minutes. More is a loop of calls.
 */
export const MAX_COUNT = 10_000;

/** What --wait reports for one queued delivery. */
interface Outcome {
  readonly deliveryId: string;
  readonly eventType: string;
  readonly endpoint: string;
  /** The record's state once the first attempt finished (or when waiting for it gave up). */
  readonly state: string;
  readonly outcome: string | null;
  readonly status: number | null;
  readonly reason: string | null;
  readonly retryAt?: string;
  /** False when another process (a worker) made the attempt. */
  readonly sentHere: boolean;
}

function eventTrigger(packName: string, eventType: string): EventTrigger {
  const { cli } = cliPack(packName);
  if (!Object.hasOwn(cli.triggers, eventType)) {
    const valid = Object.keys(cli.triggers).sort();
    throw new TwinError(
      'UNKNOWN_EVENT_TYPE',
      `pack "${packName}" cannot trigger "${eventType}"; valid event types: ${valid.join(', ')}`,
      { path: 'eventType', details: { pack: packName, valid } },
    );
  }
  return cli.triggers[eventType]!;
}

/**
 * Waits for an attempt another process (a worker) claimed, up to the pack's timeout and a
 * margin; answers the record and its last attempt as they then stand.
 */
async function settled(
  world: World,
  q: QueuedDelivery,
): Promise<{ record: Record<string, unknown>; attempt: Record<string, unknown> }> {
  const pack = getPack(world, q.pack);
  const twin = world.twin(packTwinName(pack));
  const recordType = pack.events!.recordType;
  const withinMs = (pack.events!.timeoutMs ?? 10_000) + 5_000;
  for (let waited = 0; ; waited += 20) {
    const record = (await twin.get(recordType, q.id))?.fields ?? {};
    if ((record.state !== 'queued' && record.state !== 'sending') || waited >= withinMs) {
      const number = typeof record.attempts === 'number' ? record.attempts : 0;
      const attempt =
        number === 0
          ? {}
          : ((await twin.get(attemptType(recordType), attemptId(q.id, number)))?.fields ?? {});
      return { record, attempt };
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function sendAndWait(
  world: World,
  dispatcher: Dispatcher,
  q: QueuedDelivery,
): Promise<Outcome> {
  const base = { deliveryId: q.id, eventType: q.eventType, endpoint: q.endpoint };
  const result: AttemptResult | undefined = await dispatcher.dispatch(q.pack, q.id, 'first');
  if (result !== undefined)
    return {
      ...base,
      state: result.state ?? 'unknown',
      outcome: result.outcome,
      status: result.status,
      reason: result.reason,
      ...(result.retryAt === undefined ? {} : { retryAt: result.retryAt }),
      sentHere: true,
    };
  const { record, attempt } = await settled(world, q);
  return {
    ...base,
    state: String(record.state ?? 'unknown'),
    outcome: typeof record.lastOutcome === 'string' ? record.lastOutcome : null,
    status: typeof record.lastStatus === 'number' ? record.lastStatus : null,
    reason:
      typeof attempt.reason === 'string'
        ? attempt.reason
        : typeof record.reason === 'string'
          ? record.reason
          : null,
    ...(typeof record.nextAttemptAt === 'string' ? { retryAt: record.nextAttemptAt } : {}),
    sentHere: false,
  };
}

export const triggerCommand: Command = {
  name: 'trigger',
  summary: 'Make the vendor writes that cause an event; queue its deliveries',
  usage: [
    'trigger <pack> <event-type> [--count N] [--data JSON] [--wait] [--root DIR | --store URL] [--json]',
    '       twinworld trigger --list [<pack>] [--json]',
  ].join('\n'),
  description: [
    'Like `stripe trigger`: performs in the <pack> twin the writes that produce <event-type>',
    '(with whatever they need first: for invoice.paid a customer, a card, a plan and a',
    'subscription), so each endpoint that takes an event gets one queued delivery. Prints the',
    'deliveries queued — every event the writes caused, not only <event-type> — and exits;',
    'a running `twinworld work` sends them. With --wait it sends them itself, waits for each first',
    'attempt and prints its outcome (exit 1 unless every one succeeded). `--list` shows the event',
    'types each pack can trigger and the --data keys each takes. Ctrl-C stops between runs and prints',
    `what the runs so far queued (exit 130). --count is at most ${MAX_COUNT}.`,
  ].join('\n'),
  arguments: [
    [
      '<pack>',
      cliPacks()
        .map((p) => p.name)
        .join(', '),
    ],
    ['<event-type>', 'e.g. customer.created; see --list'],
  ],
  positionals: { min: 0, max: 2 },
  options: {
    count: {
      type: 'string',
      value: { kind: 'count', min: 1, max: MAX_COUNT },
      short: 'n',
      arg: 'N',
      description: `trigger N times (default 1, at most ${MAX_COUNT})`,
    },
    data: {
      type: 'string',
      value: { kind: 'json', object: true, example: DATA_EXAMPLE },
      short: 'd',
      arg: 'JSON',
      description:
        'fields merged into the object the trigger creates, e.g. {"email":"ada@example.com"}',
    },
    wait: {
      type: 'boolean',
      description: 'send the queued deliveries from this process and print each outcome',
    },
    list: { type: 'boolean', description: 'list the event types each pack can trigger' },
  },
  jsonHelp:
    'print {pack, eventType, count, queued: [{id, pack, eventType, endpoint}], outcomes?: [...]}',
  async run(args, io) {
    if (args.values.list === true) {
      const [only] = args.positionals;
      if (args.positionals.length > 1) throw new UsageError('trigger --list takes at most <pack>');
      const packs = only === undefined ? cliPacks() : [cliPack(only)];
      const rows = packs.flatMap((p) =>
        Object.entries(p.cli.triggers)
          .sort(([a], [b]) => (a < b ? -1 : 1))
          .map(([eventType, t]) => ({
            pack: p.name,
            eventType,
            data: t.data === 'any' ? ('any' as const) : [...t.data],
          })),
      );
      if (args.json) await printJson(io, rows);
      else
        await write(
          io.stdout,
          new Table(['PACK', 'EVENT TYPE', '--data KEYS']).render(
            rows.map((r) => [
              r.pack,
              r.eventType,
              r.data === 'any' ? 'any (the payload)' : r.data.join(', ') || '-',
            ]),
          ),
        );
      return 0;
    }
    const [packName, eventType] = args.positionals;
    if (packName === undefined || eventType === undefined)
      throw new UsageError('trigger needs <pack> and <event-type> (or --list)');
    const pack = cliPack(packName);
    const t = eventTrigger(pack.name, eventType);
    const count = countOption(args, 'count') ?? 1;
    const data = jsonObjectFlag(args.values, 'data', DATA_EXAMPLE);
    const refusal =
      data === undefined ? undefined : dataKeyRefusal(pack.name, eventType, t.data, data);
    // Refused before anything is written.
    if (refusal !== undefined) throw refusal;
    const wait = args.values.wait === true;
    return withPackWorld(
      args.store,
      async (world, dispatcher) => {
        const twin = world.twin(pack.twin);
        const watch = watchQueued(world);
        let run = 0;
        const progress = statusLine(io, args.json || count === 1);
        // Ctrl-C between runs stops the loop and says what was queued, rather than dying silently
        // with thousands of deliveries queued that the user never saw.
        const signal = noteSignal();
        // What earlier runs queued stays queued (a worker sends it): say so when the loop stops.
        const stopped = async (why: string): Promise<void> => {
          if (args.json)
            await printJson(io, {
              pack: pack.name,
              eventType,
              count,
              stoppedAtRun: run + 1,
              ...(why === 'refused' ? {} : { signal: why }),
              queued: watch.queued,
            });
          else
            await write(
              io.stdout,
              `${pack.name} ${eventType}: stopped at run ${run + 1} of ${count}${why === 'refused' ? '' : ` (${why})`}; ${watch.queued.length} queued before it${watch.queued.length === 0 ? '' : `: ${watch.queued.map((q) => q.id).join(', ')}`}\n`,
            );
        };
        try {
          for (; run < count && signal.received === undefined; run++) {
            progress.show(
              `triggering ${eventType}: ${run} of ${count}, ${watch.queued.length} queued`,
            );
            await t.run(twin, data);
            // A run on SQLite may never leave the microtask queue; a signal is only seen once the
            // event loop turns, so let it turn between runs.
            await new Promise((resolve) => setImmediate(resolve));
          }
          progress.done();
        } catch (error) {
          progress.done();
          if (watch.queued.length > 0) await stopped('refused');
          throw error;
        } finally {
          signal.stop();
          watch.stop();
        }
        if (signal.received !== undefined) {
          await stopped(signal.received);
          return signalExitCode(signal.received);
        }
        const queued = watch.queued;
        const outcomes = wait
          ? await Promise.all(queued.map((q) => sendAndWait(world, dispatcher, q)))
          : undefined;
        if (args.json) {
          await printJson(io, {
            pack: pack.name,
            eventType,
            count,
            queued,
            ...(outcomes === undefined ? {} : { outcomes }),
          });
        } else {
          await write(
            io.stdout,
            `${pack.name} ${eventType}${count > 1 ? ` ×${count}` : ''}: ${queued.length} ${queued.length === 1 ? 'delivery' : 'deliveries'} queued${queued.length === 0 ? ` (no endpoint takes these events; register one with \`twinworld endpoints add ${pack.name} --url URL …\`)` : ''}\n`,
          );
          if (outcomes === undefined) {
            if (queued.length > 0)
              await write(
                io.stdout,
                new Table(['DELIVERY', 'EVENT', 'ENDPOINT']).render(
                  queued.map((q) => [q.id, q.eventType, q.endpoint]),
                ),
              );
          } else if (outcomes.length > 0) {
            await write(
              io.stdout,
              new Table(['DELIVERY', 'EVENT', 'ENDPOINT', 'OUTCOME', 'STATUS', 'REASON']).render(
                outcomes.map((o) => [
                  o.deliveryId,
                  o.eventType,
                  o.endpoint,
                  o.outcome ?? o.state,
                  o.status === null ? '-' : String(o.status),
                  `${o.reason ?? '-'}${o.retryAt === undefined ? '' : ` (retry at ${o.retryAt}, by \`twinworld work\`)`}`,
                ]),
              ),
            );
          }
        }
        return outcomes === undefined || outcomes.every((o) => o.outcome === 'succeeded') ? 0 : 1;
      },
      { dispatcher: { autoDispatch: false } },
    );
  },
};
