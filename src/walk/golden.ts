// Golden logs: a walk saved as fixtures/<name>.jsonl plus <name>.json (its state hashes and entry
// count), and the check every fixture must pass — it replays to those hashes, and its delivery
// records keep the send-once invariants.
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { TwinError } from '../errors.js';
import { fileSystemReason, makeFolders } from '../log/file-system.js';
import { replayLines } from '../world/replay.js';
import { checkDeliveryInvariants, type InvariantViolation } from './invariants.js';

export interface FixtureMeta {
  readonly hashes: Readonly<Record<string, string>>;
  readonly entries: number;
  readonly [key: string]: unknown;
}

export interface GoldenCheck {
  readonly name: string;
  readonly entries: number;
  readonly expected: FixtureMeta;
  /** What the replay reached, per twin. */
  readonly hashes: Readonly<Record<string, string>>;
  readonly hashesMatch: boolean;
  readonly violations: InvariantViolation[];
  readonly deliveries: number;
  readonly claims: number;
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;

export function checkFixtureName(name: unknown): string {
  if (typeof name !== 'string' || !NAME.test(name) || name.includes('..')) {
    throw new TwinError(
      'INVALID_ARGUMENT',
      `fixture name ${JSON.stringify(name)} is not valid; use letters, digits, '_', '.', '-' (e.g. "walk-stripe")`,
      { path: 'name' },
    );
  }
  return name;
}

/**
 * Writes `<dir>/<name>.jsonl` and `<dir>/<name>.json`; answers the two paths. Both are written
 * beside their place and renamed in only once both are whole, so a failure (a folder that cannot
 * be made, a full disk) leaves neither a log without its hashes nor a shorter log; it is
 * EXPORT_FAILED naming the file and why, where a bare errno named neither.
 */
export function writeFixture(
  dir: string,
  name: string,
  lines: readonly string[],
  meta: FixtureMeta,
): { jsonl: string; json: string } {
  checkFixtureName(name);
  const jsonl = join(dir, `${name}.jsonl`);
  const json = join(dir, `${name}.json`);
  const files: [string, string][] = [
    [jsonl, lines.length === 0 ? '' : `${lines.join('\n')}\n`],
    [json, `${JSON.stringify(meta, null, 2)}\n`],
  ];
  const partial = (file: string): string => `${file}.${process.pid}.partial`;
  let at = dir;
  try {
    makeFolders(dir);
    for (const [file, text] of files) {
      at = file;
      writeFileSync(partial(file), text);
    }
    for (const [file] of files) {
      at = file;
      renameSync(partial(file), file);
    }
  } catch (error) {
    for (const [file] of files) {
      try {
        rmSync(partial(file), { force: true });
      } catch {
        // Never made: the path to it is what failed (force forgives ENOENT, not ENOTDIR).
      }
    }
    throw new TwinError(
      'EXPORT_FAILED',
      `the golden log ${name} could not be saved: ${at === dir ? 'making the folder' : 'writing'} ${at} failed, ${fileSystemReason(error, 'writing')}; save it in a folder this user can write, on a disk with space`,
      { path: 'dir', details: { file: at, reason: errnoOf(error) }, cause: error },
    );
  }
  return { jsonl, json };
}

function errnoOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** Replays `<dir>/<name>.jsonl`, compares its hashes with `<name>.json`, and scans it for invariant breaches. */
export async function checkFixture(dir: string, name: string): Promise<GoldenCheck> {
  checkFixtureName(name);
  const expected = readMeta(join(dir, `${name}.json`), name);
  const lines = readFixtureFile(join(dir, `${name}.jsonl`), name)
    .split('\n')
    .filter((l) => l.trim() !== '');
  const replayed = await replayLines(lines);
  const invariants = checkDeliveryInvariants(lines);
  const same =
    JSON.stringify(sortKeys(replayed.hashes)) === JSON.stringify(sortKeys(expected.hashes));
  return {
    name,
    entries: replayed.entries,
    expected,
    hashes: replayed.hashes,
    hashesMatch: same && replayed.entries === expected.entries,
    violations: invariants.violations,
    deliveries: invariants.deliveries,
    claims: invariants.claims,
  };
}

/**
 * One file of a golden log, or a refusal naming it: a bare ENOENT named neither the fixture nor
 * its other file, and a name given with its extension looked for "walk-mine.jsonl.json".
 */
function readFixtureFile(path: string, name: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const bare = name.replace(/\.jsonl?$/, '');
    const hint =
      bare !== name
        ? `name the fixture without its extension: checkFixture(dir, ${JSON.stringify(bare)})`
        : `a golden log is ${name}.jsonl with ${name}.json beside it, as walk.saveFixture(${JSON.stringify(name)}) or \`twinworld walk --save\` writes them`;
    throw new TwinError(
      'LOG_FILE_UNREADABLE',
      `${path}: ${code === 'ENOENT' ? 'no such file' : `cannot be read (${code ?? String(error)})`}; ${hint}`,
      {
        path: 'name',
        details: { file: path, ...(code === undefined ? {} : { reason: code }) },
        cause: error,
      },
    );
  }
}

/** The hashes a golden log must replay to; a file that holds none is refused, not compared as {}. */
function readMeta(path: string, name: string): FixtureMeta {
  const text = readFixtureFile(path, name);
  let meta: unknown;
  try {
    meta = JSON.parse(text);
  } catch (error) {
    meta = error;
  }
  const hashes = (meta as { hashes?: unknown } | null)?.hashes;
  if (meta instanceof Error || hashes === null || typeof hashes !== 'object')
    throw new TwinError(
      'INVALID_ARGUMENT',
      `${path} is not a golden log's hashes: it must be JSON with {"hashes": {twin: "sha256:…"}, "entries": N}, as walk.saveFixture writes it`,
      { path: 'name', details: { file: path } },
    );
  return meta as FixtureMeta;
}

function sortKeys(o: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : 1)));
}
