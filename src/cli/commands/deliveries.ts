// `twinworld deliveries` and `twinworld attempts`: the delivery records of every pack, found by
// state through their index, and the numbered attempts of one delivery with the headers sent.
import { TwinError } from '../../errors.js';
import {
  DELIVERY_STATES,
  attemptId,
  attemptType,
  deliveryOf,
} from '../../events/delivery-records.js';
import { packTwinName, registeredPacks } from '../../events/pack-registry.js';
import type { Resource } from '../../state/resource.js';
import { stringOption, type Command } from '../command.js';
import { printJson, Table, write } from '../output.js';
import { withPackWorld } from '../pack-world.js';

function deliveryRow(r: Resource): Record<string, unknown> {
  const d = deliveryOf(r);
  return {
    id: r.id,
    pack: d.pack,
    eventType: d.eventType,
    eventId: d.eventId,
    endpoint: `${d.endpointKind}/${d.endpointId}`,
    url: d.url,
    state: d.state,
    attempts: d.attempts,
    lastStatus: d.lastStatus,
    acceptedAt: d.acceptedAt,
    nextAttemptAt: d.nextAttemptAt,
    createdAt: d.createdAt,
  };
}

export const deliveriesCommand: Command = {
  name: 'deliveries',
  summary: 'List webhook delivery records and their states',
  usage: 'deliveries [--state S] [--pack P] [--root DIR | --store URL] [--json]',
  description: [
    'Lists the delivery records of every built-in pack: id, event type, endpoint, state,',
    `attempts and last status. States: ${DELIVERY_STATES.join(', ')}.`,
  ].join('\n'),
  arguments: [],
  positionals: { min: 0, max: 0 },
  options: {
    state: {
      type: 'string',
      value: { kind: 'choice', choices: DELIVERY_STATES },
      short: 's',
      arg: 'S',
      description: 'only records in state S',
    },
    pack: {
      type: 'string',
      value: { kind: 'text', nonEmpty: true },
      short: 'p',
      arg: 'P',
      description: 'only records of pack P',
    },
  },
  jsonHelp: 'print one JSON array of delivery records',
  async run(args, io) {
    const state = stringOption(args, 'state');
    const packName = stringOption(args, 'pack');
    return withPackWorld(
      args.store,
      async (world) => {
        const packs = [...registeredPacks(world).values()].filter((p) => p.events !== undefined);
        if (packName !== undefined && !packs.some((p) => p.name === packName))
          throw new TwinError(
            'UNKNOWN_PACK',
            `no pack "${packName}" sends deliveries; packs: ${packs.map((p) => p.name).join(', ')}`,
            { path: 'pack', details: { valid: packs.map((p) => p.name) } },
          );
        const rows: Record<string, unknown>[] = [];
        for (const pack of registeredPacks(world).values()) {
          if (pack.events === undefined || (packName !== undefined && pack.name !== packName))
            continue;
          if (!(await world.twinNames()).includes(packTwinName(pack))) continue;
          const twin = world.twin(packTwinName(pack));
          // Terminal states are not indexed (nothing but this listing reads them): filter the list.
          const records = (await twin.list(pack.events.recordType)).filter(
            (r) => state === undefined || r.fields.state === state,
          );
          rows.push(...records.map(deliveryRow));
        }
        rows.sort(
          (a, b) =>
            String(a.createdAt).localeCompare(String(b.createdAt)) ||
            String(a.id).localeCompare(String(b.id)),
        );
        if (args.json) await printJson(io, rows);
        else if (rows.length === 0) await write(io.stdout, 'no deliveries\n');
        else {
          const table = new Table(['ID', 'EVENT', 'ENDPOINT', 'STATE', 'ATTEMPTS', 'LAST STATUS']);
          await write(
            io.stdout,
            table.render(
              rows.map((r) => [
                String(r.id),
                String(r.eventType),
                String(r.endpoint),
                String(r.state),
                String(r.attempts),
                r.lastStatus === null ? '-' : String(r.lastStatus),
              ]),
            ),
          );
        }
        return 0;
      },
      { create: false },
    );
  },
};

export const attemptsCommand: Command = {
  name: 'attempts',
  summary: 'Show the attempts of one delivery',
  usage: 'attempts <delivery> [--root DIR | --store URL] [--json]',
  description:
    'Prints each numbered attempt of <delivery>: kind (first, retry, redeliver), state, status,\nreason, start and finish times, and the headers actually sent.',
  arguments: [['<delivery>', 'delivery id, e.g. dlv_…']],
  positionals: { min: 1, max: 1 },
  options: {},
  jsonHelp: 'print one JSON array of attempts',
  async run(args, io) {
    const [id] = args.positionals as [string];
    return withPackWorld(
      args.store,
      async (_world, dispatcher) => {
        const { pack, twin, delivery } = await dispatcher.find(id);
        const type = attemptType(pack.events!.recordType);
        const attempts = (
          await Promise.all(
            Array.from({ length: delivery.attempts }, (_, i) =>
              twin.get(type, attemptId(id, i + 1)),
            ),
          )
        ).filter((a): a is Resource => a !== undefined);
        if (args.json)
          await printJson(
            io,
            attempts.map((a) => ({ id: a.id, ...a.fields })),
          );
        else if (attempts.length === 0)
          await write(io.stdout, `delivery ${id} (${delivery.state}) has no attempts yet\n`);
        else {
          const table = new Table([
            '#',
            'KIND',
            'STATE',
            'STATUS',
            'REASON',
            'STARTED',
            'FINISHED',
          ]);
          await write(
            io.stdout,
            table.render(
              attempts.map((a) => [
                String(a.fields.number),
                String(a.fields.kind),
                String(a.fields.state),
                a.fields.status === null ? '-' : String(a.fields.status),
                String(a.fields.reason ?? '-'),
                String(a.fields.startedAt),
                String(a.fields.finishedAt ?? '-'),
              ]),
            ),
          );
        }
        return 0;
      },
      { create: false },
    );
  },
};
