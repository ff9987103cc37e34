// A walk written by a user, as a module: `export default async (walk, packs) => { … }` (or a
// named `walk` export), with an optional `export const options = { seed, start }`. Loading checks
// the shape and says how to fix it; running opens the walk, calls the function, settles, reports.
import { existsSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { TwinError } from '../errors.js';
import type { Pack } from '../events/pack-registry.js';
import type { StorageBackend } from '../storage/port.js';
import type { ClockTime } from '../world/clock.js';
import { openWalk, type Walk } from './walk.js';
import { walkSeed, walkStart } from './walk-start.js';

/** The function a walk module exports. `packs` is the `twinworld/packs` module (stripe, github, slack, …). */
export type WalkFunction = (walk: Walk, packs: Readonly<Record<string, unknown>>) => unknown;

export interface WalkModuleOptions {
  readonly seed?: string | number;
  readonly start?: string | number;
}

export interface LoadedWalk {
  readonly file: string;
  readonly fn: WalkFunction;
  readonly options: WalkModuleOptions;
}

export async function loadWalkModule(file: string): Promise<LoadedWalk> {
  if (typeof file !== 'string' || file === '')
    throw new TwinError(
      'INVALID_ARGUMENT',
      'give the walk module to run, e.g. twinworld walk ./my-walk.mjs',
      { path: 'file' },
    );
  const path = resolve(file);
  if (!existsSync(path))
    throw new TwinError('INVALID_ARGUMENT', `no walk module at ${path}`, { path: 'file' });
  // import() says only "Directory import … is not supported resolving ES modules".
  if (statSync(path).isDirectory())
    throw new TwinError(
      'INVALID_ARGUMENT',
      `${file} is a folder; give the walk module in it, e.g. twinworld walk ${join(file, 'my-walk.mjs')}`,
      { path: 'file' },
    );
  let mod: Record<string, unknown>;
  try {
    mod = (await import(pathToFileURL(path).href)) as Record<string, unknown>;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ERR_UNKNOWN_FILE_EXTENSION') {
      throw new TwinError(
        'INVALID_ARGUMENT',
        `${file}: this Node cannot import its file type; write the walk as .mjs/.js, or compile the TypeScript first (or run under a loader such as tsx)`,
        { path: 'file' },
      );
    }
    throw new TwinError(
      'INVALID_ARGUMENT',
      `${file} could not be imported: ${(error as Error).message}`,
      { path: 'file', cause: error },
    );
  }
  const fn = typeof mod.default === 'function' ? mod.default : mod.walk;
  if (typeof fn !== 'function') {
    throw new TwinError(
      'INVALID_ARGUMENT',
      `${file} exports no walk; write \`export default async (walk, packs) => { … }\` (or export a function named "walk")`,
      { path: 'file' },
    );
  }
  const options = (mod.options ?? {}) as WalkModuleOptions;
  if (options === null || typeof options !== 'object')
    throw new TwinError(
      'INVALID_ARGUMENT',
      `${file}: \`options\` must be an object such as { seed: 7, start: '2026-01-01T00:00:00Z' }`,
      { path: 'options' },
    );
  // A misspelt key ({ sede: 7 }) would otherwise leave the walk on the default seed, unnoticed.
  for (const key of Object.keys(options))
    if (key !== 'seed' && key !== 'start')
      throw new TwinError(
        'INVALID_ARGUMENT',
        `${file}: options.${key} is not a walk option; \`options\` takes seed and start, e.g. { seed: 7, start: '2026-01-01T00:00:00Z' }`,
        { path: `options.${key}` },
      );
  return { file: path, fn: fn as WalkFunction, options };
}

/**
 * The seed and start a walk module runs with: the caller's (flags), else the module's own, each
 * checked as the flags are and refused naming `options.seed` or `options.start` of the file. A
 * module value the caller overrides is not looked at, so a flag can still run a module whose own
 * is wrong.
 */
export function walkModuleSettings(
  loaded: LoadedWalk,
  given: { readonly seed?: string | number; readonly start?: ClockTime } = {},
): { seed: string; start?: ClockTime } {
  const shown = relative(process.cwd(), loaded.file) || loaded.file;
  const seed =
    given.seed === undefined
      ? loaded.options.seed === undefined
        ? '1'
        : walkSeed(loaded.options.seed, 'options.seed', `${shown}: options.seed`)
      : walkSeed(given.seed);
  const start =
    given.start === undefined
      ? loaded.options.start === undefined
        ? undefined
        : walkStart(loaded.options.start, 'options.start', `${shown}: options.start`)
      : given.start;
  return { seed, ...(start === undefined ? {} : { start }) };
}

export interface RunWalkOptions {
  readonly seed?: string | number;
  readonly start?: ClockTime;
  readonly root?: string;
  /** Another storage backend (PostgreSQL): the walk's world is kept there. */
  readonly backend?: StorageBackend;
  readonly packs: readonly Pack[];
  /** Handed to the walk function as its second argument. */
  readonly lib: Readonly<Record<string, unknown>>;
}

/**
 * What the user's walk threw, as WALK_FAILED naming the module and the line of the throw when the
 * stack has it: the bug is in the walk, not the kernel. A kernel refusal (a TwinError: a bad
 * write, an unknown pack) keeps its own code and path, which say more.
 */
function walkFailure(error: unknown, file: string): unknown {
  if (error instanceof TwinError) return error;
  const message = error instanceof Error ? error.message : String(error);
  const at = throwSite(error, file);
  const shown = relative(process.cwd(), file) || file;
  const where = at === undefined ? shown : `${shown}:${at.line}`;
  return new TwinError('WALK_FAILED', `the walk in ${shown} threw: ${message}`, {
    path: where,
    details: { file, ...at },
    cause: error,
  });
}

/** The line and column of the first stack frame in the walk's own file, when there is one. */
function throwSite(error: unknown, file: string): { line: number; column: number } | undefined {
  const stack = error instanceof Error && typeof error.stack === 'string' ? error.stack : '';
  const url = `${pathToFileURL(file).href}:`;
  for (const frame of stack.split('\n')) {
    const i = frame.indexOf(url);
    const m = i < 0 ? null : /^(\d+):(\d+)/.exec(frame.slice(i + url.length));
    if (m !== null) return { line: Number(m[1]), column: Number(m[2]) };
  }
  return undefined;
}

/** Opens a walk for the module, runs it and settles; the caller reports and closes. */
export async function runWalkModule(loaded: LoadedWalk, options: RunWalkOptions): Promise<Walk> {
  const { seed, start } = walkModuleSettings(loaded, options);
  const walk = await openWalk({
    seed,
    ...(start === undefined ? {} : { start }),
    ...(options.root === undefined ? {} : { root: options.root }),
    ...(options.backend === undefined ? {} : { backend: options.backend }),
    packs: options.packs,
  });
  try {
    try {
      await loaded.fn(walk, options.lib);
    } catch (error) {
      throw walkFailure(error, loaded.file);
    }
    await walk.settle();
  } catch (error) {
    await walk.close().catch(() => {});
    throw error;
  }
  return walk;
}
