// `twinworld walk <file>`: runs a walk module the user wrote — `export default async (walk, packs)
// => { … }` — on a fresh embedded world with every built-in pack, then prints the walk's report
// (deliveries, attempts, triggers, trace ids, state hashes), or saves it as a golden log.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { builtInPacks } from '../../../packs/built-in.js';
import * as packs from '../../../packs/index.js';
import { isTwinError, TwinError } from '../../errors.js';
import { formatReport, type FormatOptions } from '../../walk/format-report.js';
import { loadWalkModule, runWalkModule, walkModuleSettings } from '../../walk/walk-module.js';
import type { Walk } from '../../walk/walk.js';
import type { StorageBackend } from '../../storage/port.js';
import { prepareRoot } from '../../world/root.js';
import { pgBackend } from '../store.js';
import { checkSaveTarget } from '../walk-save.js';
import {
  countOption,
  stringOption,
  type CliIO,
  type Command,
  type OptionSpec,
  type ParsedArgs,
} from '../command.js';
import { timeFlag } from '../flags.js';
import { printJson, write } from '../output.js';

/**
 * The seed is hashed into every id the walk draws, as the text of a number. A walk module names it
 * as a JS number (`options = { seed: 7 }`), so only whole numbers a double holds exactly name the
 * same walk both ways: past 2^53 − 1, "99999999999999999999" and the number it parses to differ.
 */
export const SEED_FLAG: OptionSpec = {
  type: 'string',
  value: { kind: 'count', max: Number.MAX_SAFE_INTEGER },
  arg: 'N',
  description: `seed of the walk, a whole number 0–${Number.MAX_SAFE_INTEGER}: the same seed\nwrites the same log (default 1)`,
};

/** --seed, --start and --root as every walk-running command reads them. */
const WALK_OPTIONS: Readonly<Record<string, OptionSpec>> = {
  seed: SEED_FLAG,
  start: {
    type: 'string',
    value: { kind: 'time' },
    arg: 'ISO',
    description: 'where the virtual clock starts, e.g. 2026-03-28T22:00:00Z',
  },
};

export const ROOT_NOTE =
  'Runs on a fresh temporary world root, removed afterwards; --root DIR keeps the world in DIR\n(which must be new or empty), for `twinworld deliveries --root DIR` and friends; --store URL\n(or TWINWORLD_STORE) keeps it in that store, whose world must hold no twins yet.';

/** Where a walk's world is kept: a folder, or a store's label and its backend. */
export interface WalkPlace {
  readonly root: string;
  readonly backend?: StorageBackend;
  /** How to name the world to later commands: `--root DIR` or `--store LABEL`. */
  readonly flag: string;
}

const SEEDED =
  'a walk starts from an empty world (its seeded ids would collide with what is there)';

/**
 * A fresh world for a walk: the store asked for (--root, --store or TWINWORLD_STORE: kept, and
 * refused if it already holds something — a seeded walk on an old world would draw ids it already
 * used), else a temporary root.
 */
export async function withWalkRoot<T>(
  args: ParsedArgs,
  fn: (place: WalkPlace, kept: boolean) => Promise<T>,
): Promise<T> {
  const store = args.store;
  if (store.from === 'default') {
    const dir = mkdtempSync(join(tmpdir(), 'twinworld-walk-'));
    try {
      return await fn({ root: dir, flag: `--root ${dir}` }, false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  if (store.kind === 'sqlite') {
    const dir = resolve(store.root);
    // A file, or a path through one, is ROOT_NOT_A_FOLDER here as for any world, not ENOTDIR.
    prepareRoot(dir, true);
    if (readdirSync(dir).length > 0) {
      throw new TwinError(
        'INVALID_ARGUMENT',
        `${store.from} ${store.root} is not empty; ${SEEDED} — pick a new folder`,
        { path: store.from === '--root' ? 'root' : 'store' },
      );
    }
    return fn({ root: dir, flag: `--root ${dir}` }, true);
  }
  const backend = await pgBackend(store);
  try {
    const twins = await backend.listTwins();
    if (twins.length > 0) {
      throw new TwinError(
        'INVALID_ARGUMENT',
        `world "${store.world}" in ${store.label} already holds twins (${twins.join(', ')}); ${SEEDED} — pick another ?world=NAME`,
        { path: 'store' },
      );
    }
    return await fn({ root: store.label, backend, flag: `--store '${store.label}'` }, true);
  } finally {
    // The walk closes its world, and with it the backend; this covers a walk that never opened.
    await backend.close();
  }
}

/** --seed as a number ("007" is the walk of 7), or the fallback. */
export function walkSeed(args: ParsedArgs, fallback: number | undefined): number | undefined {
  return countOption(args, 'seed') ?? fallback;
}

/** A failed save, placed at the flag the user typed rather than at saveFixture's `dir`. */
function atSaveFlag(error: unknown): never {
  if (!isTwinError(error, 'EXPORT_FAILED')) throw error;
  throw new TwinError(error.code, `--save: ${error.message}`, {
    path: 'save',
    ...(error.details === undefined ? {} : { details: { ...error.details } }),
    cause: error.cause,
  });
}

/** Prints the walk's report as text, or as one JSON object with `extra` merged in. */
export async function printWalkReport(
  io: CliIO,
  args: ParsedArgs,
  walk: Walk,
  format: FormatOptions,
  extra: Record<string, unknown> = {},
): Promise<void> {
  const report = await walk.report();
  if (args.json) await printJson(io, { ...extra, ...report });
  else await write(io.stdout, formatReport(report, format));
}

export const walkCommand: Command = {
  name: 'walk',
  summary: 'Run a walk you wrote (a JS module) and print its report',
  usage:
    'walk <file.mjs> [--seed N] [--start ISO] [--save PATH] [--root DIR | --store URL] [--json]',
  description: [
    'Imports <file.mjs>, which exports its walk as `export default async (walk, packs) => { … }`',
    '(or as a function named `walk`), and may export `options = { seed, start }`. The walk gets a',
    'seeded world on a virtual clock with every built-in pack (walk.twin("stripe"), …), fault-',
    'injecting receivers (walk.receiver(name, profile).url), walk.advance(ms), walk.settle(); the',
    'second argument is the twinworld/packs module (packs.stripe.createCustomer, …). Afterwards it',
    'prints each delivery with its attempts, the trigger decisions, trace ids and state hashes.',
    ROOT_NOTE,
  ].join('\n'),
  arguments: [['<file.mjs>', 'the walk module (.mjs or .js; compile TypeScript first)']],
  positionals: { min: 1, max: 1 },
  options: {
    ...WALK_OPTIONS,
    save: {
      type: 'string',
      value: { kind: 'text', nonEmpty: true },
      arg: 'PATH',
      description:
        'also save the log as PATH.jsonl and its hashes as PATH.json (a golden log);\nPATH names the files, not a folder, and is checked before the walk runs',
    },
  },
  jsonHelp: 'print the report as one JSON object (deliveries, receivers, triggers, hashes, wall)',
  async run(args, io) {
    const [file] = args.positionals as [string];
    const loaded = await loadWalkModule(file);
    const saveFlag = stringOption(args, 'save');
    const save = saveFlag === undefined ? undefined : checkSaveTarget(saveFlag);
    const seed = walkSeed(args, undefined);
    const start = timeFlag(args.values, 'start');
    // The module's own seed and start are checked before --root is made, as the flags are.
    const settings = walkModuleSettings(loaded, {
      ...(seed === undefined ? {} : { seed }),
      ...(start === undefined ? {} : { start }),
    });
    return withWalkRoot(args, async (place, kept) => {
      const root = place.root;
      const walk = await runWalkModule(loaded, {
        ...settings,
        root,
        ...(place.backend === undefined ? {} : { backend: place.backend }),
        packs: builtInPacks,
        lib: packs,
      });
      try {
        let saved: string | null = null;
        if (save !== undefined)
          saved = (await walk.saveFixture(save.name, { dir: save.dir }).catch(atSaveFlag)).jsonl;
        const notes = [
          ...(kept ? [`world kept at ${root}`] : []),
          ...(saved === null ? [] : [`log saved to ${saved}`]),
        ];
        await printWalkReport(
          io,
          args,
          walk,
          { title: `twinworld walk ${basename(file)}`, notes },
          { file: loaded.file, root: kept ? root : null, saved },
        );
      } finally {
        await walk.close();
      }
      return 0;
    });
  },
};
