// Golden logs: a walk saved as fixtures/<name>.jsonl plus <name>.json (its state hashes and entry
// count), and the check every fixture must pass — it replays to those hashes, and its delivery
// records keep the send-once invariants.
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { TwinError } from '../errors.js';
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

/** Writes `<dir>/<name>.jsonl` and `<dir>/<name>.json`; answers the two paths. */
export function writeFixture(
  dir: string,
  name: string,
  lines: readonly string[],
  meta: FixtureMeta,
): { jsonl: string; json: string } {
  checkFixtureName(name);
  mkdirSync(dir, { recursive: true });
  const jsonl = join(dir, `${name}.jsonl`);
  const json = join(dir, `${name}.json`);
  writeFileSync(jsonl, lines.length === 0 ? '' : `${lines.join('\n')}\n`);
  writeFileSync(json, `${JSON.stringify(meta, null, 2)}\n`);
  return { jsonl, json };
}

/** Replays `<dir>/<name>.jsonl`, compares its hashes with `<name>.json`, and scans it for invariant breaches. */
export async function checkFixture(dir: string, name: string): Promise<GoldenCheck> {
  checkFixtureName(name);
  const expected = JSON.parse(readFileSync(join(dir, `${name}.json`), 'utf8')) as FixtureMeta;
  const lines = readFileSync(join(dir, `${name}.jsonl`), 'utf8')
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

function sortKeys(o: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : 1)));
}
