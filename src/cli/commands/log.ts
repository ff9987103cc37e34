// `twinworld log`: a twin's entries in seq order, as a table or as a JSON array, read a page
// at a time so a long log streams instead of loading whole.
import type { Entry } from '../../log/write.js';
import { countOption, withTwin, type Command } from '../command.js';
import { Table, truncate, write } from '../output.js';

const PAGE = 1_000;

export function entryTable(): Table {
  return new Table(['SEQ', 'RECORDED', 'ACTOR', 'OPERATION', 'SUBJECT', 'CHANGE']);
}

/** One entry as a table row; CHANGE is cut short here — --json shows entries whole. */
export function entryRow(entry: Entry): string[] {
  const parts: string[] = [];
  if (entry.delete === true) parts.push('delete');
  if (entry.fields !== undefined) parts.push(JSON.stringify(entry.fields));
  const p = entry.projection;
  if (p !== undefined) {
    const n = (p.creates?.length ?? 0) + (p.updates?.length ?? 0) + (p.deletes?.length ?? 0);
    parts.push(`+${n} projected`);
  }
  return [
    String(entry.seq),
    entry.recordedAt,
    entry.actor,
    entry.operation,
    `${entry.subjectType}/${entry.subjectId}`,
    truncate(parts.join(' '), 80),
  ];
}

export const logCommand: Command = {
  name: 'log',
  summary: "Print a twin's entries in seq order",
  usage: 'log <twin> [--after N] [--limit N] [--root DIR | --store URL] [--json]',
  description:
    "Prints the entries of <twin>'s log, oldest first: those with seq greater than --after,\nat most --limit of them. Refused (exit 1, UNKNOWN_TWIN) when the twin does not exist.",
  arguments: [['<twin>', 'twin name, e.g. stripe']],
  positionals: { min: 1, max: 1 },
  options: {
    after: {
      type: 'string',
      value: { kind: 'count' },
      arg: 'N',
      description: 'only entries with seq > N (default 0)',
    },
    limit: {
      type: 'string',
      // 0 printed 'no entries in twin "x"' about a twin that has them; other --limit flags start at 1.
      value: { kind: 'count', min: 1 },
      arg: 'N',
      description: 'at most N entries (default: all)',
    },
  },
  jsonHelp: 'print one JSON array of the entries, whole (fields and projection included)',
  async run(args, io) {
    const [name] = args.positionals as [string];
    let after = countOption(args, 'after') ?? 0;
    let left = countOption(args, 'limit') ?? Number.MAX_SAFE_INTEGER;
    return withTwin(args, name, { mustExist: true }, async (twin) => {
      const table = entryTable();
      let first = true;
      if (args.json) await write(io.stdout, '[');
      while (left > 0) {
        const page = await twin.entries({ after, limit: Math.min(PAGE, left) });
        if (page.length === 0) break;
        if (args.json) {
          await write(
            io.stdout,
            page.map((e, i) => `${first && i === 0 ? '' : ','}\n${JSON.stringify(e)}`).join(''),
          );
        } else {
          await write(io.stdout, table.render(page.map(entryRow)));
        }
        first = false;
        after = page[page.length - 1]!.seq;
        left -= page.length;
      }
      if (args.json) await write(io.stdout, first ? ']\n' : '\n]\n');
      else if (first)
        await write(
          io.stdout,
          `no entries in twin "${name}"${after > 0 ? ` after seq ${after}` : ''}\n`,
        );
      return 0;
    });
  },
};
