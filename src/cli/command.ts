// What every `twinworld` subcommand shares: the Command shape (help text, parseArgs options,
// run(args, io) → exit code), the io it talks through — streams passed in rather than taken
// from `process`, so tests can drive a command in-process as well as through the binary — and
// opening the world a command works on.
import { existsSync } from 'node:fs';
import type { Readable, Writable } from 'node:stream';
import { TwinError } from '../errors.js';
import { RealClock } from '../world/clock.js';
import type { Twin } from '../world/twin.js';
import { openWorld, validateTwinName, type World } from '../world/world.js';
import { storageRefusal } from '../world/root.js';

export interface CliIO {
  readonly stdin: Readable;
  readonly stdout: Writable;
  readonly stderr: Writable;
  /** Progress lines go to stderr only when a person is watching it. */
  readonly isTTY: { readonly stdin: boolean; readonly stdout: boolean; readonly stderr: boolean };
}

export interface OptionSpec {
  readonly type: 'string' | 'boolean';
  readonly short?: string;
  /** Repeatable: the value is an array of every occurrence. */
  readonly multiple?: boolean;
  /** Placeholder shown in help, e.g. "N" in `--limit N`. */
  readonly arg?: string;
  readonly description: string;
}

export interface ParsedArgs {
  readonly positionals: readonly string[];
  readonly values: Readonly<Record<string, string | boolean | string[] | undefined>>;
  /** `--root DIR`, default ./.twinworld. */
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
  /** Command-specific options; --root, --json and --help are added to every command. */
  readonly options: Readonly<Record<string, OptionSpec>>;
  /** What --json does for this command. */
  readonly jsonHelp: string;
  run(args: ParsedArgs, io: CliIO): Promise<number>;
}

export const DEFAULT_ROOT = './.twinworld';

export const COMMON_OPTIONS: Readonly<Record<string, OptionSpec>> = {
  root: { type: 'string', arg: 'DIR', description: `world root folder (default ${DEFAULT_ROOT})` },
  json: { type: 'boolean', description: '' },
  help: { type: 'boolean', short: 'h', description: 'show this help' },
};

/** A mistake in how the command was called (exit 2), as opposed to a refused operation (exit 1). */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

export function stringOption(args: ParsedArgs, name: string): string | undefined {
  const value = args.values[name];
  return typeof value === 'string' ? value : undefined;
}

/** A non-negative integer option; anything else is a usage error, never silently coerced. */
export function countOption(args: ParsedArgs, name: string): number | undefined {
  const raw = stringOption(args, name);
  if (raw === undefined) return undefined;
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(Number(raw))) {
    throw new UsageError(`--${name} must be a non-negative integer, got "${raw}"`);
  }
  return Number(raw);
}

/**
 * Opens the world with the real clock and the SQLite backend, and always closes it. Commands that
 * only read pass `create: false`: a missing root is refused (ROOT_NOT_FOUND), never created.
 * What the file system or the driver says about the root comes out as a typed refusal.
 */
export async function withWorld<T>(
  root: string,
  fn: (world: World) => Promise<T> | T,
  options: { create?: boolean } = {},
): Promise<T> {
  const world = openWorld({ root, clock: new RealClock(), create: options.create ?? true });
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
  if (options.mustExist && !existsSync(args.root)) throw unknownTwin(name, args.root);
  return withWorld(
    args.root,
    async (world) => {
      const known = await world.twinNames();
      if (options.mustExist && !known.includes(name)) throw unknownTwin(name, world.root, known);
      return fn(world.twin(name));
    },
    { create: !options.mustExist },
  );
}

function unknownTwin(name: string, root: string, known: string[] = []): TwinError {
  const hint = known.length === 0 ? 'it holds no twins yet' : `it holds: ${known.join(', ')}`;
  return new TwinError(
    'UNKNOWN_TWIN',
    `no twin "${name}" in the world at ${root} (${hint}); check the name or pass --root`,
    { path: 'twin' },
  );
}

export async function readAll(stream: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream)
    chunks.push(typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : (chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}
