// What every `twinworld` subcommand shares: the Command shape (help text, parseArgs options,
// run(args, io) → exit code), the io it talks through — streams passed in rather than taken
// from `process`, so tests can drive a command in-process as well as through the binary — and
// opening the world a command works on.
import type { Readable, Writable } from 'node:stream';
import { TwinError } from '../errors.js';
import { RealClock } from '../world/clock.js';
import type { Twin } from '../world/twin.js';
import { validateTwinName, type World } from '../world/world.js';
import { storageRefusal } from '../world/root.js';
import { DEFAULT_ROOT, openStoreWorld, parseStore, STORE_ENV, type StoreTarget } from './store.js';
import { parseFlagValue, type FlagValue } from './flags.js';
import { UsageError } from './usage-error.js';

export { DEFAULT_ROOT, UsageError };

export interface CliIO {
  readonly stdin: Readable;
  readonly stdout: Writable;
  readonly stderr: Writable;
  /** Progress lines go to stderr only when a person is watching it. */
  readonly isTTY: { readonly stdin: boolean; readonly stdout: boolean; readonly stderr: boolean };
  /** Where TWINWORLD_STORE is read (default process.env). */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

interface OptionBase {
  readonly short?: string;
  /** Repeatable: the value is an array of every occurrence. */
  readonly multiple?: boolean;
  /** Placeholder shown in help, e.g. "N" in `--limit N`. */
  readonly arg?: string;
  readonly description: string;
}

/**
 * A flag. A string flag says what its value is (src/cli/flags.ts): the dispatcher checks it before
 * the command runs, so a malformed value is a usage error whichever flag it is.
 */
export type OptionSpec =
  | (OptionBase & { readonly type: 'boolean' })
  | (OptionBase & { readonly type: 'string'; readonly value: FlagValue });

export interface ParsedArgs {
  readonly positionals: readonly string[];
  readonly values: Readonly<Record<string, string | boolean | string[] | undefined>>;
  /** Where the world is kept: `--root DIR`, `--store URL` or TWINWORLD_STORE (src/cli/store.ts). */
  readonly store: StoreTarget;
  /**
   * The same as a string `withWorld` accepts: the SQLite root folder (default ./.twinworld), or
   * the PostgreSQL URL — which may carry a password, so print `store.label` (or `world.root`), never this.
   */
  readonly root: string;
  /** `--json`: machine-readable output (and errors as JSON on stderr). */
  readonly json: boolean;
}

export interface Command {
  readonly name: string;
  /** One line for `twinworld help`. */
  readonly summary: string;
  /** The synopsis after "Usage: ". */
  readonly usage: string;
  /** What the command does and prints, a few lines. */
  readonly description: string;
  readonly arguments: readonly (readonly [name: string, description: string])[];
  readonly positionals: { readonly min: number; readonly max: number };
  /** Command-specific options; --root, --store, --json and --help are added to every command. */
  readonly options: Readonly<Record<string, OptionSpec>>;
  /** What --json does for this command. */
  readonly jsonHelp: string;
  run(args: ParsedArgs, io: CliIO): Promise<number>;
}

export const COMMON_OPTIONS: Readonly<Record<string, OptionSpec>> = {
  root: {
    type: 'string',
    value: { kind: 'text', nonEmpty: true },
    arg: 'DIR',
    description: `world root folder, kept in SQLite (default ${DEFAULT_ROOT})`,
  },
  store: {
    type: 'string',
    value: { kind: 'text', nonEmpty: true },
    arg: 'URL',
    description: `where the world is kept: postgres://user:pw@host:port/db[?world=NAME]\n(PostgreSQL), sqlite:DIR or a folder (SQLite); default $${STORE_ENV}`,
  },
  json: { type: 'boolean', description: '' },
  help: { type: 'boolean', short: 'h', description: 'show this help' },
};

export function stringOption(args: ParsedArgs, name: string): string | undefined {
  const value = args.values[name];
  return typeof value === 'string' ? value : undefined;
}

/** A non-negative integer option; anything else is a usage error, never silently coerced. */
export function countOption(args: ParsedArgs, name: string): number | undefined {
  const raw = stringOption(args, name);
  if (raw === undefined) return undefined;
  return parseFlagValue(name, { kind: 'count' }, raw) as number;
}

/**
 * Opens the world with the real clock on its store (`args.store`, or `args.root` as a string: a
 * folder, sqlite:DIR or a postgres:// URL), and always closes it. Commands that only read pass
 * `create: false`: a missing SQLite root is refused (ROOT_NOT_FOUND), never created. What the file
 * system or the database says comes out as a typed refusal (src/storage/postgres/store-error.ts).
 */
export async function withWorld<T>(
  where: string | StoreTarget,
  fn: (world: World) => Promise<T> | T,
  options: { create?: boolean } = {},
): Promise<T> {
  const target = typeof where === 'string' ? parseStore(where) : where;
  const world = await openStoreWorld(target, {
    clock: new RealClock(),
    create: options.create ?? true,
  });
  let result: T;
  try {
    result = await fn(world);
  } catch (error) {
    // The command's own error is the one worth reporting, not a failure to close after it.
    await world.close().catch(() => {});
    throw storageRefusal(error, world.root) ?? error;
  }
  await world.close();
  return result;
}

/**
 * Opens `name` in the world at `root`. Commands that only read pass `mustExist`, so a typo in a
 * twin name is refused instead of silently creating an empty twin (or an empty root folder).
 */
export async function withTwin<T>(
  args: ParsedArgs,
  name: string,
  options: { mustExist: boolean },
  fn: (twin: Twin) => Promise<T> | T,
): Promise<T> {
  validateTwinName(name);
  // A missing SQLite root is refused by withWorld as ROOT_NOT_FOUND, as every read command says
  // it: the folder is what is wrong, not the twin's name.
  return withWorld(
    args.store,
    async (world) => {
      const known = await world.twinNames();
      if (options.mustExist && !known.includes(name)) throw unknownTwin(name, world.root, known);
      return fn(world.twin(name));
    },
    { create: !options.mustExist },
  );
}

function unknownTwin(name: string, root: string, known: string[]): TwinError {
  const hint = known.length === 0 ? 'it holds no twins yet' : `it holds: ${known.join(', ')}`;
  return new TwinError(
    'UNKNOWN_TWIN',
    `no twin "${name}" in the world at ${root} (${hint}); check the name, or pass --root or --store`,
    { path: 'twin' },
  );
}

export async function readAll(stream: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream)
    chunks.push(typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : (chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}
