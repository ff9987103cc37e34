// A twin's stored lines, passed on only while the log vouches for them: `twinworld export` refuses
// a log whose hash chain is broken, as import and replay refuse the file it would make, instead of
// writing it out with exit 0 for the next tool to trip over. One line is held back until the line
// after it (or, for the newest, the root's mark or the recorded chain head) vouches for it, so a
// changed line is never written; the line after a broken link says which of the two was changed.
import { TwinError } from '../errors.js';
import { GENESIS, lineHash, type ChainHead } from '../log/chain.js';
import type { Twin } from './twin.js';

interface Held {
  readonly line: string;
  readonly seq: number;
  readonly prev: string | undefined;
  readonly hash: string;
}

const short = (hash: string): string => `${hash.slice(0, 12)}…`;

/** A hash recorded for an entry when it was written, and who recorded it. */
export interface ChainWitness {
  readonly hash: string;
  readonly by: string;
}

/**
 * The hashes recorded when entries were written — the root's mark, and the chain head the store
 * recorded at its last commit — by seq: the only witnesses for the newest line, which no line
 * after it vouches for.
 */
export function chainWitnesses(
  twin: Twin,
  mark: ChainHead | undefined,
  recorded: ChainHead | undefined,
): Map<number, ChainWitness> {
  const witnesses = new Map<number, ChainWitness>();
  if (mark !== undefined)
    witnesses.set(mark.seq, {
      hash: mark.hash,
      by: `the root (${twin.world.marks!.file(twin.name)})`,
    });
  if (recorded !== undefined)
    witnesses.set(recorded.seq, { hash: recorded.hash, by: 'its commit' });
  return witnesses;
}

/**
 * Of a link that does not hold (entry `at`'s prev is not the hash of the entry before it), whether
 * `at` itself is vouched for — by the entry after it, or for the newest by a witness — so the entry
 * before it is the one that was changed; otherwise `at` is.
 */
export function linkVouched(
  at: { readonly seq: number; readonly hash: string },
  next: { readonly prev: string | undefined } | undefined,
  witnesses: ReadonlyMap<number, ChainWitness>,
): boolean {
  return next === undefined ? witnesses.get(at.seq)?.hash === at.hash : next.prev === at.hash;
}

function read(line: string): Held {
  // Only seq and prev are looked at; a line that is no entry at all fails its link.
  let parsed: { seq?: unknown; prev?: unknown } | null;
  try {
    parsed = JSON.parse(line) as { seq?: unknown; prev?: unknown } | null;
  } catch {
    parsed = null;
  }
  return {
    line,
    seq: typeof parsed?.seq === 'number' ? parsed.seq : NaN,
    prev: typeof parsed?.prev === 'string' ? parsed.prev : undefined,
    hash: lineHash(line),
  };
}

/**
 * The twin's export lines as they are stored, or IMPORT_CHAIN_BROKEN naming the entry that was
 * changed or is missing once the log stops vouching for itself (the checks `verify` makes of the
 * chain, not of the state). Entries written before the chain (no `prev`) pass while no entry
 * before them had one. The refusal's details count the lines let through.
 */
export async function* chainCheckedLines(twin: Twin): AsyncIterable<string> {
  const name = twin.name;
  const vouched = chainWitnesses(
    twin,
    twin.world.marks?.read(name),
    await twin.recordedChainHead(),
  );

  let last: Held | undefined;
  let chained = false;
  let passed = 0;
  const refuse = (seq: number, what: string): TwinError =>
    new TwinError(
      'IMPORT_CHAIN_BROKEN',
      `twin "${name}"'s log is broken at entry ${seq}: ${what} — \`twinworld verify ${name}\` says more; --allow-broken exports the log as it is stored`,
      { path: 'twin', details: { seq, entries: passed } },
    );
  const changed = (seq: number, detail: string): TwinError =>
    refuse(seq, `entry ${seq} was changed after it was written: ${detail}`);
  /** The link from `at` back to `before` does not hold: which of them changed, as `next` says. */
  const blame = (at: Held, before: Held, next: Held | undefined): TwinError => {
    if (at.prev === undefined)
      return changed(at.seq, 'it has no prev though the entries before it are chained');
    if (linkVouched(at, next, vouched))
      return changed(
        before.seq,
        `its line hashes to ${short(before.hash)}, but entry ${at.seq}, which the log vouches for, records ${short(at.prev)}`,
      );
    return changed(
      at.seq,
      `its prev ${short(at.prev)} is not the hash ${short(before.hash)} of entry ${before.seq} before it`,
    );
  };

  const lines = twin.exportLines()[Symbol.asyncIterator]();
  let broken: { at: Held; before: Held } | undefined;
  try {
    for (;;) {
      const step = await lines.next();
      if (step.done === true) break;
      const entry = read(step.value);
      if (broken !== undefined) throw blame(broken.at, broken.before, entry);
      const want = (last?.seq ?? 0) + 1;
      if (entry.seq !== want)
        throw entry.seq > want
          ? refuse(
              want,
              `entry ${want}${entry.seq > want + 1 ? `–${entry.seq - 1}` : ''} ${entry.seq > want + 1 ? 'are' : 'is'} missing: after entry ${want - 1} the log holds entry ${entry.seq}`,
            )
          : changed(want, `the line stored as entry ${want} does not say it is entry ${want}`);
      const witness = vouched.get(entry.seq);
      if (witness !== undefined && witness.hash !== entry.hash)
        throw changed(
          entry.seq,
          `its line hashes to ${short(entry.hash)}, but ${witness.by} recorded ${short(witness.hash)} for it`,
        );
      if (entry.prev !== undefined || chained) {
        chained = true;
        if (entry.prev !== (last?.hash ?? GENESIS)) {
          if (last === undefined)
            throw changed(
              entry.seq,
              `its prev ${short(entry.prev ?? '')} is not ${short(GENESIS)} (64 zeros), the link of a log's first entry`,
            );
          broken = { at: entry, before: last };
          continue;
        }
      }
      if (last !== undefined) {
        yield last.line;
        passed++;
      }
      last = entry;
    }
  } finally {
    await lines.return?.();
  }
  if (broken !== undefined) throw blame(broken.at, broken.before, undefined);
  if (last !== undefined) yield last.line;
}
