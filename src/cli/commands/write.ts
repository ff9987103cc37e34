// `twinworld write`: appends one write (or several, atomically) to a twin and prints the
// entries they became. The write comes from --data or stdin, because --json is the output switch
// every command shares.
import { TwinError } from '../../errors.js';
import { validateWrite, type Write } from '../../log/write.js';
import { readAll, UsageError, withTwin, type Command } from '../command.js';
import { printJson, write } from '../output.js';
import { entryRow, entryTable } from './log.js';
import { jsonFlag } from '../flags.js';

const WRITE_EXAMPLE =
  '{"operation":"customer.create","subjectType":"customer","subjectId":"cus_1","fields":{}}';

export const writeCommand: Command = {
  name: 'write',
  summary: 'Append a write to a twin and print the entry it became',
  usage: "write <twin> [--data '<write>'] [--root DIR | --store URL] [--json]",
  description: [
    'Appends a write to <twin> (created on first write) and prints the resulting entry.',
    'The write is JSON, given with --data/-d or, when --data is absent, read from stdin:',
    '  twinworld write stripe -d \'{"operation":"customer.create","subjectType":"customer","subjectId":"cus_1","fields":{"name":"Ada"}}\'',
    "  echo '{…}' | twinworld write stripe",
    'A JSON array of writes is appended atomically: all of them or none.',
    'Keys: operation, subjectType, subjectId, fields | delete, projection, occurredAt, actor.',
    'A bad write is refused (exit 1, INVALID_WRITE naming the path) and nothing is appended.',
    'Note: --json only selects the output format; it does not take the write.',
  ].join('\n'),
  arguments: [['<twin>', 'twin name, e.g. stripe']],
  positionals: { min: 1, max: 1 },
  options: {
    data: {
      type: 'string',
      value: { kind: 'json', example: WRITE_EXAMPLE },
      short: 'd',
      arg: 'JSON',
      description:
        'the write as JSON (an object, or an array of objects);\nread from stdin when absent',
    },
  },
  jsonHelp:
    'print the appended entry as one JSON object\n(an array of entries for an array of writes)',
  async run(args, io) {
    const [name] = args.positionals as [string];
    let parsed: unknown = jsonFlag(args.values, 'data', WRITE_EXAMPLE);
    if (parsed === undefined) {
      // Waiting on a terminal nobody is typing into would look like a hang.
      if (io.isTTY.stdin)
        throw new UsageError("give the write with --data '<json>' or pipe it on stdin");
      const text = await readAll(io.stdin);
      // Nothing given is a usage slip (as on a terminal), not a write that is bad JSON.
      if (text.trim() === '')
        throw new UsageError(
          "stdin was empty: give the write with --data '<json>' or pipe it on stdin",
        );
      try {
        parsed = JSON.parse(text);
      } catch (error) {
        throw new TwinError(
          'INVALID_WRITE',
          `the write on stdin is not valid JSON (${(error as Error).message}); give an object like ${WRITE_EXAMPLE}`,
          { path: 'write' },
        );
      }
    }
    const many = Array.isArray(parsed);
    const writes = (many ? parsed : [parsed]) as Write[];
    if (writes.length === 0)
      throw new TwinError('INVALID_WRITE', 'the write is an empty array; give at least one write', {
        path: 'write',
      });
    // Checked before the world opens, so a refused first write does not leave an empty twin behind.
    writes.forEach((w, i) => validateWrite(w, many ? `writes[${i}]` : 'write'));
    return withTwin(args, name, { mustExist: false }, async (twin) => {
      const { entries } = await twin.applyAtomic(() => writes);
      if (args.json) await printJson(io, many ? entries : entries[0]);
      else await write(io.stdout, entryTable().render(entries.map(entryRow)));
      return 0;
    });
  },
};
