// `twinworld send`: like a vendor's own CLI trigger — builds what an event needs, renders and
// signs it as the vendor would, delivers it through the dispatcher to the user's app, and records
// everything in the world's log. `send --list` shows every event each pack can send.
import { checkPack, checkSend, listSendable, sendEvent } from '../../../packs/send.js';
import { stringOption, UsageError, withWorld, type Command } from '../command.js';
import { printJson, Table, write } from '../output.js';
import { DATA_EXAMPLE } from '../pack-cli.js';
import { jsonObjectFlag } from '../flags.js';

export const sendCommand: Command = {
  name: 'send',
  summary: 'Send one vendor-faithful, signed webhook to your app',
  usage:
    'send <pack> <event-type> --to URL --secret S [--data JSON] [--root DIR | --store URL] [--json]\n       twinworld send --list [<pack>] [--json]',
  description: [
    'Builds the resources <event-type> needs in the <pack> twin, subscribes an endpoint for URL,',
    "performs the write that causes the event, signs it with the vendor's scheme and secret S, and",
    'POSTs it to URL. Prints the attempt: status, outcome, duration and the delivery id; the',
    'resources, the delivery record and the attempt stay in the world (see `twinworld deliveries`).',
    'The secret is kept in the store (<root>/secrets.db, or a table on PostgreSQL), never in the log.',
    'A send killed at any moment leaves no endpoint that later events go to. That endpoint is one-shot:',
    "it takes no retries (the delivery ends cancelled); for the pack's retries use `endpoints add` and",
    '`trigger`. Exit 1 unless the receiver answered 2xx.',
  ].join('\n'),
  arguments: [
    ['<pack>', 'stripe, github, slack or standard-webhooks'],
    ['<event-type>', 'e.g. customer.created; see --list'],
  ],
  positionals: { min: 0, max: 2 },
  options: {
    to: {
      type: 'string',
      value: { kind: 'url' },
      arg: 'URL',
      description: "your app's webhook URL, e.g. http://127.0.0.1:3000/webhooks",
    },
    secret: {
      type: 'string',
      value: { kind: 'text', nonEmpty: true },
      arg: 'S',
      description: 'the signing secret your app verifies with (Stripe: whsec_…)',
    },
    data: {
      type: 'string',
      value: { kind: 'json', object: true, example: DATA_EXAMPLE },
      short: 'd',
      arg: 'JSON',
      description: 'fields merged into the causing write, e.g. {"email":"ada@example.com"}',
    },
    list: {
      type: 'boolean',
      description: 'list the event types each pack can send (with <pack>: that pack only)',
    },
  },
  jsonHelp: 'print the attempt as JSON (with --list: the sendable events as a JSON array)',
  async run(args, io) {
    if (args.values.list === true) {
      // As `trigger --list [<pack>]`: a pack named lists its types alone.
      const [only] = args.positionals;
      if (args.positionals.length > 1) throw new UsageError('send --list takes at most <pack>');
      if (only !== undefined) checkPack(only);
      const all = listSendable().filter((s) => only === undefined || s.pack === only);
      if (args.json) await printJson(io, all);
      else
        await write(
          io.stdout,
          new Table(['PACK', 'EVENT TYPE']).render(all.map((s) => [s.pack, s.eventType])),
        );
      return 0;
    }
    const [pack, eventType] = args.positionals;
    if (pack === undefined || eventType === undefined)
      throw new UsageError('send needs <pack> and <event-type> (or --list)');
    const to = stringOption(args, 'to');
    const secret = stringOption(args, 'secret');
    if (to === undefined) throw new UsageError('send needs --to URL');
    if (secret === undefined) throw new UsageError('send needs --secret S');
    const data = jsonObjectFlag(args.values, 'data', DATA_EXAMPLE);
    const options = { pack, eventType, to, secret, ...(data === undefined ? {} : { data }) };
    // Before the world opens: a refused send creates no root and writes nothing.
    checkSend(options);
    return withWorld(args.store, async (world) => {
      const result = await sendEvent(world, options);
      if (args.json) await printJson(io, result);
      else {
        await write(io.stdout, `${result.pack} ${result.eventType} → ${to}\n`);
        await write(io.stdout, `  delivery  ${result.deliveryId} (event ${result.eventId})\n`);
        await write(
          io.stdout,
          `  outcome   ${result.outcome} ${result.status ?? '-'} (${result.reason}) in ${result.durationMs.toFixed(1)} ms\n`,
        );
        if (result.outcome !== 'succeeded')
          await write(
            io.stdout,
            "  retries   none: a send's endpoint is one-shot, retired (disabled or removed, as the vendor does) after this attempt; use `endpoints add` and `trigger` for the pack's retries\n",
          );
      }
      return result.outcome === 'succeeded' ? 0 : 1;
    });
  },
};
