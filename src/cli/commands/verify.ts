// `twinworld verify`: checks a twin's stored log against itself — every line well-formed, seqs
// dense, the hash chain unbroken, the entries the root's mark and the recorded head vouch for
// unchanged — and its stored state against the log folded again; names the first entry that does
// not match.
import { verifyTwin, type VerifyReport } from '../../world/verify.js';
import { withTwin, type Command } from '../command.js';
import { printJson, write } from '../output.js';

function describe(report: VerifyReport): string {
  const name = JSON.stringify(report.twin);
  const p = report.problem;
  if (p !== undefined) {
    return [
      `twin ${name}: BROKEN at entry ${p.seq} (${p.check})`,
      `  ${p.message}`,
      `  investigate: ${p.investigate}`,
      '',
    ].join('\n');
  }
  const head = report.chainHead;
  const chain =
    head === undefined
      ? 'no entries'
      : `${report.entries} entries, chain intact to entry ${head.seq} (${head.hash.slice(0, 16)}…)`;
  const lines = [`twin ${name}: ok — ${chain}; the state matches the log (${report.stateHash})`];
  if (report.unchained > 0)
    lines.push(
      `  note: entries 1–${report.unchained} were written before the chain and carry no prev: only the refold vouches for them (import an export into a new twin to chain them)`,
    );
  return `${lines.join('\n')}\n`;
}

export const verifyCommand: Command = {
  name: 'verify',
  summary: "Check a twin's hash chain and its state against its log",
  usage: 'verify <twin> [--root DIR | --store URL] [--json]',
  description: [
    "Reads <twin>'s whole log and checks that every entry is well-formed, seqs run 1, 2, 3… with",
    "no gap, every entry's prev is the SHA-256 of the entry before it, and the entry the root",
    'remembers (and, on PostgreSQL, the newest entry its commit recorded) is there unchanged; then',
    'folds the log again and compares the result with the stored resources. Prints ok, or the',
    'first entry that does not match, what differed and how to look into it (exit 1). Reads only.',
    'Refused (exit 1, TWIN_LOG_MISSING) when the database holds fewer entries than the root',
    'recorded; (exit 1, UNKNOWN_TWIN) when the twin does not exist.',
  ].join('\n'),
  arguments: [['<twin>', 'twin name, e.g. stripe']],
  positionals: { min: 1, max: 1 },
  options: {},
  jsonHelp:
    'print {"twin", "ok", "entries", "chainHead": {"seq", "hash"}, "unchained", "stateHash", "foldedHash", "problem": {"seq", "check", "message", "investigate"}}',
  async run(args, io) {
    const [name] = args.positionals as [string];
    return withTwin(args, name, { mustExist: true }, async (twin) => {
      const report = await verifyTwin(twin);
      if (args.json) await printJson(io, report);
      else await write(io.stdout, describe(report));
      return report.ok ? 0 : 1;
    });
  },
};
