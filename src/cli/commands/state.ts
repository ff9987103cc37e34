// `twinworld state`: the live resources of a twin — of one type with --type, or of every type.
import type { Resource } from '../../state/resource.js';
import { stringOption, withTwin, type Command } from '../command.js';
import { printJson, Table, write } from '../output.js';

export const stateCommand: Command = {
  name: 'state',
  summary: 'Print the live resources of a twin',
  usage: 'state <twin> [--type T] [--root DIR | --store URL] [--json]',
  description: [
    'Prints the live (not deleted) resources of <twin>, ordered by type then id.',
    'With --type, only that type, read straight from the resource index; without it, every',
    'live resource in one pass over the folded state (never the log).',
    'Refused (exit 1, UNKNOWN_TWIN) when the twin does not exist.',
  ].join('\n'),
  arguments: [['<twin>', 'twin name, e.g. stripe']],
  positionals: { min: 1, max: 1 },
  options: {
    type: {
      type: 'string',
      value: { kind: 'text', nonEmpty: true },
      short: 't',
      arg: 'T',
      description: 'only resources of type T, e.g. customer',
    },
  },
  jsonHelp: 'print one JSON array of resources {type, id, version, deleted, fields}',
  async run(args, io) {
    const [name] = args.positionals as [string];
    const only = stringOption(args, 'type');
    return withTwin(args, name, { mustExist: true }, async (twin) => {
      const resources: Resource[] =
        only === undefined ? await collect(twin.liveResources()) : await twin.list(only);
      if (args.json) {
        await printJson(io, resources);
      } else if (resources.length === 0) {
        await write(
          io.stdout,
          `no live resources in twin "${name}"${only === undefined ? '' : ` of type "${only}"`}\n`,
        );
      } else {
        const table = new Table(['TYPE', 'ID', 'VERSION', 'FIELDS']);
        await write(
          io.stdout,
          table.render(
            resources.map((r) => [r.type, r.id, String(r.version), JSON.stringify(r.fields)]),
          ),
        );
      }
      return 0;
    });
  },
};

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}
