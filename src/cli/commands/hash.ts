// `twinworld hash`: the state hash of a twin's live resources — the value a replay of its log
// must reproduce, printed bare so scripts can compare it directly.
import { withTwin, type Command } from '../command.js';
import { printJson, write } from '../output.js';

export const hashCommand: Command = {
  name: 'hash',
  summary: "Print a twin's state hash",
  usage: 'hash <twin> [--root DIR | --store URL] [--json]',
  description: [
    'Prints the state hash of <twin> (sha256:… over its live resources in canonical JSON).',
    "`twinworld replay` of the twin's exported log prints the same hash.",
    'Refused (exit 1, UNKNOWN_TWIN) when the twin does not exist.',
  ].join('\n'),
  arguments: [['<twin>', 'twin name, e.g. stripe']],
  positionals: { min: 1, max: 1 },
  options: {},
  jsonHelp: 'print {"twin", "hash", "entries"} (entries = the seq of the newest entry)',
  async run(args, io) {
    const [name] = args.positionals as [string];
    return withTwin(args, name, { mustExist: true }, async (twin) => {
      const hash = await twin.hash();
      if (args.json) await printJson(io, { twin: name, hash, entries: await twin.head() });
      else await write(io.stdout, `${hash}\n`);
      return 0;
    });
  },
};
