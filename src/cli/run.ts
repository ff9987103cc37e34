// The dispatcher behind `twinworld`: picks the subcommand, parses its flags with node:util
// parseArgs (strict), renders help, and maps outcomes to exit codes (0 ok, 1 refused, 2 usage).
// Kept apart from main.ts so tests can run the whole CLI in-process with their own io.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import {
  COMMON_OPTIONS,
  DEFAULT_ROOT,
  UsageError,
  type CliIO,
  type Command,
  type OptionSpec,
  type ParsedArgs,
} from './command.js';
import { checkFlagValues } from './flags.js';
import { printError, printUsageError, write } from './output.js';
import { chooseStore, STORE_ENV, storeSpec } from './store.js';
import { completionScript, SHELLS } from './completion.js';
import { packageVersion } from './version.js';
import { didYouMean } from '../did-you-mean.js';
import { COMMAND_NAMES, loadCommand, loadCommands } from './command-table.js';

const EXIT_STATUS =
  'Exit status: 0 on success, 1 when the operation is refused or fails (the error is printed\non stderr as `error CODE: message (at path)`, or as JSON with --json), 2 on a usage error.\n';

async function mainHelp(): Promise<string> {
  const commands = await loadCommands();
  const width = Math.max(...COMMAND_NAMES.map((n) => n.length), 'completion'.length);
  const lines = [
    ...commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    `  ${'help'.padEnd(width)}  Show help for a command`,
    `  ${'completion'.padEnd(width)}  Print a completion script: completion bash|zsh|fish`,
  ];
  return [
    'twinworld — event-sourced twins of SaaS vendors',
    '',
    'Usage: twinworld <command> [arguments] [options]',
    '',
    'Commands:',
    ...lines,
    '',
    `Every command takes --root DIR (a world root folder, kept in SQLite; default ${DEFAULT_ROOT}) or`,
    `--store URL (postgres://user:pw@host:port/db[?world=NAME] for PostgreSQL; sqlite:DIR or a folder`,
    `for SQLite; default $${STORE_ENV}), --json (machine-readable output) and -h/--help.`,
    'Run `twinworld help <command>` or `twinworld <command> --help` for details;',
    '`twinworld --version` prints the version.',
    '',
    EXIT_STATUS,
  ].join('\n');
}

function optionLabel(name: string, spec: OptionSpec): string {
  const short = spec.short === undefined ? '    ' : `-${spec.short}, `;
  return `${short}--${name}${spec.type === 'string' ? ` ${spec.arg ?? 'VALUE'}` : ''}`;
}

function commandHelp(command: Command): string {
  const options = Object.entries({ ...command.options, ...COMMON_OPTIONS }).map(
    ([name, spec]) =>
      [optionLabel(name, spec), name === 'json' ? command.jsonHelp : spec.description] as const,
  );
  const width = Math.max(
    ...options.map(([label]) => label.length),
    ...command.arguments.map(([n]) => n.length),
  );
  // Multi-line descriptions are indented under their own column.
  const row = (label: string, text: string): string =>
    `  ${label.padEnd(width)}  ${text.split('\n').join(`\n  ${' '.repeat(width)}  `)}`;
  return [
    `Usage: twinworld ${command.usage}`,
    '',
    command.description,
    '',
    ...(command.arguments.length === 0
      ? []
      : ['Arguments:', ...command.arguments.map(([n, d]) => row(n, d)), '']),
    'Options:',
    ...options.map(([label, text]) => row(label, text)),
    '',
    EXIT_STATUS,
  ].join('\n');
}

function parseConfig(command: Command): NonNullable<ParseArgsConfig['options']> {
  const out: NonNullable<ParseArgsConfig['options']> = {};
  for (const [name, spec] of Object.entries({ ...command.options, ...COMMON_OPTIONS })) {
    out[name] = {
      type: spec.type,
      ...(spec.short === undefined ? {} : { short: spec.short }),
      ...(spec.multiple === true ? { multiple: true } : {}),
    };
  }
  return out;
}

const MAIN_HINT = 'see `twinworld --help`';

function helpHint(command: Command): string {
  return `see \`twinworld ${command.name} --help\``;
}

/** node:util parseArgs' messages, said as what to type instead. */
function parserMessage(error: Error): string {
  const code = (error as NodeJS.ErrnoException).code;
  const flag = /'(?:-\w, )?(-{1,2}[^' ]+)/.exec(error.message)?.[1] ?? 'the option';
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION')
    return `unknown option ${flag}; a value that starts with "-" goes after "--" or as ${flag.startsWith('--') ? '--name=VALUE' : 'a flag=VALUE'}`;
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    if (/argument missing/.test(error.message)) return `${flag} needs a value, e.g. ${flag} VALUE`;
    if (/does not take an argument/.test(error.message))
      return `${flag} is a switch and takes no value; write ${flag} alone`;
    if (/ambiguous/.test(error.message))
      return `${flag} is followed by something that looks like an option; if that is its value, write ${flag}=VALUE`;
  }
  return error.message.split('\n')[0] ?? error.message;
}

export async function runCli(argv: readonly string[], io: CliIO): Promise<number> {
  // Known before parsing succeeds, so that even a usage error comes out as JSON when asked.
  const wantsJson = argv.includes('--json');
  const [first, ...rest] = argv;
  if (first === undefined) return printUsageError(io, 'no command given', MAIN_HINT, wantsJson);
  if (first === '--version' || first === '-V') {
    await write(io.stdout, `twinworld ${packageVersion()}\n`);
    return 0;
  }
  if (first === 'completion') {
    const script = rest.length === 1 ? completionScript(rest[0]!, await loadCommands()) : undefined;
    if (script === undefined)
      return printUsageError(
        io,
        `completion takes one shell: ${SHELLS.join(', ')}${rest.length === 0 ? '' : ` (got ${rest.join(' ')})`}`,
        'Usage: twinworld completion bash|zsh|fish\n',
        wantsJson,
      );
    await write(io.stdout, script);
    return 0;
  }
  if (first === '--help' || first === '-h') {
    await write(io.stdout, await mainHelp());
    return 0;
  }
  if (first === 'help') {
    const [topic, ...extra] = rest;
    if (topic === undefined) {
      await write(io.stdout, await mainHelp());
      return 0;
    }
    const command = topic === undefined ? undefined : await loadCommand(topic);
    if (command === undefined || extra.length > 0) {
      return printUsageError(
        io,
        command === undefined
          ? `unknown command "${topic}"${didYouMean(topic, COMMAND_NAMES)}`
          : 'help takes one command name',
        MAIN_HINT,
        wantsJson,
      );
    }
    await write(io.stdout, commandHelp(command));
    return 0;
  }
  const command = await loadCommand(first);
  if (command === undefined)
    return printUsageError(
      io,
      `unknown command "${first}"${didYouMean(first, COMMAND_NAMES)}`,
      MAIN_HINT,
      wantsJson,
    );

  let parsed: {
    values: Record<string, string | boolean | (string | boolean)[] | undefined>;
    positionals: string[];
  };
  try {
    parsed = parseArgs({
      args: [...rest],
      options: parseConfig(command),
      strict: true,
      allowPositionals: true,
    });
  } catch (error) {
    return printUsageError(io, parserMessage(error as Error), helpHint(command), wantsJson);
  }
  if (parsed.values.help === true) {
    await write(io.stdout, commandHelp(command));
    return 0;
  }
  const json = parsed.values.json === true;
  try {
    checkFlagValues({ ...command.options, ...COMMON_OPTIONS }, parsed.values);
  } catch (error) {
    if (error instanceof UsageError)
      return printUsageError(io, error.message, helpHint(command), json);
    throw error;
  }
  const { min, max } = command.positionals;
  const count = parsed.positionals.length;
  if (count < min) {
    const missing = command.arguments[count]?.[0] ?? 'an argument';
    return printUsageError(io, `missing ${missing}`, helpHint(command), json);
  }
  if (count > max) {
    return printUsageError(
      io,
      `unexpected argument "${parsed.positionals[max]}"`,
      helpHint(command),
      json,
    );
  }
  try {
    const store = chooseStore(parsed.values, io.env ?? process.env);
    const args: ParsedArgs = {
      positionals: parsed.positionals,
      values: parsed.values as ParsedArgs['values'],
      store,
      root: storeSpec(store),
      json,
    };
    return await command.run(args, io);
  } catch (error) {
    if (error instanceof UsageError)
      return printUsageError(io, error.message, helpHint(command), json);
    return printError(io, error, json);
  }
}
