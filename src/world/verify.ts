// Verifying a twin: reads its stored log line by line and checks what the log itself vouches for —
// each line well-formed, seqs dense from 1, each `prev` the hash of the line before (chain.ts), the
// newest line the chain head recorded at its commit where the store records one, the entry the
// root's mark names (head-marks.ts) — then folds the log again and compares the result with the
// stored resources. Stops at the first entry that does not match and says how to look at it. Reads
// only; the fold is held in memory, like a replay.
import { canonicalJson } from '../log/canonical-json.js';
import { GENESIS, lineHash, type ChainHead } from '../log/chain.js';
import { validateEntry, type Entry } from '../log/write.js';
import { foldEntry, plainProducer, type Resource } from '../state/resource.js';
import { compareResources, stateHash } from '../state/state-hash.js';
import { TwinError } from '../errors.js';
import { chainWitnesses, linkVouched } from './chain-guard.js';
import type { Twin } from './twin.js';

type VerifyCheck = 'entry' | 'sequence' | 'chain' | 'head' | 'mark' | 'state';

interface VerifyProblem {
  /** The first entry that does not match (for `state`, the entry that last wrote the resource). */
  readonly seq: number;
  readonly check: VerifyCheck;
  /** What differed. */
  readonly message: string;
  /** How to look into it. */
  readonly investigate: string;
  readonly details?: Readonly<Record<string, unknown>>;
}

export interface VerifyReport {
  readonly twin: string;
  readonly ok: boolean;
  /** Entries read from the log. */
  readonly entries: number;
  /** The newest entry's seq and hash, when the log was read through. */
  readonly chainHead: ChainHead | undefined;
  /** Entries written before the chain (no `prev`): their bytes are vouched for by nothing. */
  readonly unchained: number;
  /** State hash of the stored resources, and of the log folded again (absent if it was not). */
  readonly stateHash: string;
  readonly foldedHash: string | undefined;
  readonly problem: VerifyProblem | undefined;
}

interface Read {
  readonly seq: number;
  readonly hash: string;
  readonly entry: Entry;
}

function short(hash: string): string {
  return `${hash.slice(0, 12)}…`;
}

function look(twin: string, seq: number): string {
  const from = Math.max(0, seq - 2);
  return `\`twinworld log ${twin} --after ${from} --limit ${seq - from + 1}\` shows it with its neighbours; compare it with an export or a backup of the twin. To rebuild from a trusted export, import it into a new twin (\`twinworld import\` checks the chain line by line)`;
}

/** The first field (depth-first, sorted keys) where two values differ, as a path. */
function firstDifference(a: unknown, b: unknown, path: string): string {
  if (canonicalJson(a) === canonicalJson(b)) return '';
  if (
    a === null ||
    b === null ||
    typeof a !== 'object' ||
    typeof b !== 'object' ||
    Array.isArray(a) !== Array.isArray(b)
  )
    return path;
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  for (const key of [...new Set([...Object.keys(ao), ...Object.keys(bo)])].sort()) {
    const at = Array.isArray(a) ? `${path}[${key}]` : `${path}.${key}`;
    const found = firstDifference(ao[key], bo[key], at);
    if (found !== '') return found;
  }
  return path;
}

export async function verifyTwin(twin: Twin): Promise<VerifyReport> {
  const name = twin.name;
  const mark = twin.world.marks?.read(name);
  const recorded = await twin.recordedChainHead();
  // Shared with export's guard, so both blame the same entry for the same broken link.
  const witnesses = chainWitnesses(twin, mark, recorded);
  const types = new Map<string, Map<string, Resource>>();
  const get = (type: string, id: string): Resource | undefined => types.get(type)?.get(id);
  let problem: VerifyProblem | undefined;
  let last: Read | undefined;
  let unchained = 0;
  let chained = false;
  let markHash: string | undefined;
  /** A link that did not hold: blamed on the entry before once the next entry shows who changed. */
  let pending: { at: Read; before: Read; want: string } | undefined;

  const breakAt = (at: Read, before: Read, want: string, vouched: boolean): VerifyProblem =>
    vouched
      ? {
          seq: before.seq,
          check: 'chain',
          message: `entry ${before.seq} was changed after it was written: its stored line hashes to ${short(before.hash)}, but entry ${at.seq}, which the chain after it vouches for, recorded ${short(at.entry.prev!)} as its prev`,
          investigate: look(name, before.seq),
          details: { expected: at.entry.prev, found: before.hash },
        }
      : {
          seq: at.seq,
          check: 'chain',
          message: `entry ${at.seq}'s prev ${short(at.entry.prev!)} is not the hash ${short(want)} of entry ${before.seq} before it: entry ${at.seq} was changed after it was written${at.seq === before.seq + 1 ? '' : ', or entries between them were removed'}`,
          investigate: look(name, at.seq),
          details: { expected: want, found: at.entry.prev },
        };

  const lines = twin.exportLines()[Symbol.asyncIterator]();
  for (;;) {
    const seq = (last?.seq ?? 0) + 1;
    let body: string;
    try {
      const step = await lines.next();
      if (step.done === true) break;
      body = step.value;
    } catch (error) {
      if (error instanceof TwinError) throw error;
      const code = (error as { code?: unknown } | null)?.code;
      problem = {
        seq,
        check: 'entry',
        message: `the log cannot be read past entry ${seq - 1} (${typeof code === 'string' ? code : String(error)}): the database is damaged`,
        investigate: `restore the twin from a backup, or import an export of it (\`twinworld export ${name}\` stops where the damage begins) into a new twin`,
      };
      break;
    }
    const hash = lineHash(body);
    let entry: Entry;
    try {
      entry = validateEntry(JSON.parse(body), `entry ${seq}`);
    } catch (error) {
      if (pending !== undefined) {
        problem = breakAt(pending.at, pending.before, pending.want, false);
        break;
      }
      const reason =
        error instanceof TwinError
          ? error.message
          : `it is not valid JSON (${(error as Error).message})`;
      problem = {
        seq,
        check: 'entry',
        message: `the stored line of entry ${seq} is damaged: ${reason}`,
        investigate: look(name, seq),
      };
      break;
    }
    const read: Read = { seq: entry.seq, hash, entry };
    if (pending !== undefined) {
      problem = breakAt(
        pending.at,
        pending.before,
        pending.want,
        linkVouched(pending.at, { prev: entry.prev }, witnesses),
      );
      break;
    }
    if (entry.seq !== seq) {
      problem = {
        seq,
        check: 'sequence',
        message:
          entry.seq > seq
            ? `entry ${seq}${entry.seq > seq + 1 ? `–${entry.seq - 1}` : ''} ${entry.seq > seq + 1 ? 'are' : 'is'} missing: after entry ${seq - 1} the log holds entry ${entry.seq}`
            : `the line stored as entry ${seq} says it is entry ${entry.seq}: it was changed or copied in`,
        investigate: look(name, seq),
        details: { expected: seq, found: entry.seq },
      };
      break;
    }
    if (entry.prev === undefined) {
      if (chained) {
        problem = {
          seq,
          check: 'chain',
          message: `entry ${seq} has no prev though the entries before it are chained: it was changed after it was written`,
          investigate: look(name, seq),
        };
        break;
      }
      unchained++;
    } else {
      chained = true;
      const want = last?.hash ?? GENESIS;
      if (entry.prev !== want) {
        if (last === undefined) {
          problem = {
            seq,
            check: 'chain',
            message: `entry 1's prev is ${short(entry.prev)}, but the first entry of a log links to ${short(GENESIS)} (64 zeros): it was changed after it was written`,
            investigate: look(name, seq),
            details: { expected: want, found: entry.prev },
          };
          break;
        }
        pending = { at: read, before: last, want };
      }
    }
    if (mark?.seq === seq) markHash = hash;
    for (const next of foldEntry(entry, get, plainProducer)) {
      let byId = types.get(next.type);
      if (byId === undefined) types.set(next.type, (byId = new Map()));
      byId.set(next.id, next);
    }
    last = read;
  }
  await lines.return?.();
  if (problem === undefined && pending !== undefined) {
    // The newest entry: only what was recorded when it was written (the root's mark, the chain
    // head of its commit) can vouch for it.
    problem = breakAt(
      pending.at,
      pending.before,
      pending.want,
      linkVouched(pending.at, undefined, witnesses),
    );
  }
  const entries = last?.seq ?? 0;
  const head = await twin.head();
  if (problem === undefined && head > entries) {
    problem = {
      seq: entries + 1,
      check: 'sequence',
      message: `the log ends at entry ${entries}, but the store's head is ${head}: entries ${entries + 1}–${head} are missing`,
      investigate: look(name, entries + 1),
    };
  }
  if (problem === undefined && recorded !== undefined) {
    if (recorded.seq > entries) {
      problem = {
        seq: entries + 1,
        check: 'head',
        message: `the log ends at entry ${entries}, but its last commit recorded entry ${recorded.seq}: entries ${entries + 1}–${recorded.seq} were removed`,
        investigate: look(name, entries + 1),
      };
    } else if (recorded.seq === entries && recorded.hash !== last!.hash) {
      problem = {
        seq: entries,
        check: 'head',
        message: `entry ${entries}, the newest, was changed after it was written: its stored line hashes to ${short(last!.hash)}, but its commit recorded ${short(recorded.hash)}`,
        investigate: look(name, entries),
        details: { expected: recorded.hash, found: last!.hash },
      };
    }
  }
  if (problem === undefined && mark !== undefined) {
    const file = twin.world.marks!.file(name);
    if (mark.seq > entries) {
      problem = {
        seq: entries + 1,
        check: 'mark',
        message: `the log ends at entry ${entries}, but the root recorded that it reached entry ${mark.seq} (${file}): entries were removed or the database was replaced by an older copy`,
        investigate: `restore the database from a backup or import an export of its log; if the loss is intended, delete ${file}`,
      };
    } else if (markHash !== mark.hash) {
      problem = {
        seq: mark.seq,
        check: 'mark',
        message: `entry ${mark.seq} hashes to ${short(markHash ?? '')}, but the root recorded ${short(mark.hash)} for it (${file}): the database was replaced by another log, or the entry was changed`,
        investigate: look(name, mark.seq),
        details: { expected: mark.hash, found: markHash },
      };
    }
  }
  const stored = await twin.hash();
  let foldedHash: string | undefined;
  if (problem === undefined) {
    const folded: Resource[] = [];
    for (const byId of types.values())
      for (const r of byId.values()) if (!r.deleted) folded.push(r);
    folded.sort(compareResources);
    foldedHash = stateHash(folded);
    problem = await compareState(name, folded, twin.liveResources());
    if (problem === undefined && foldedHash !== stored) {
      problem = {
        seq: entries,
        check: 'state',
        message: `the stored state hashes to ${stored}, the log folds to ${foldedHash}`,
        investigate: `\`twinworld state ${name}\` lists the stored resources; \`twinworld export ${name} | twinworld replay -\` folds the log`,
      };
    }
  }
  return {
    twin: name,
    ok: problem === undefined,
    entries,
    chainHead: last === undefined ? undefined : { seq: last.seq, hash: last.hash },
    unchained,
    stateHash: stored,
    foldedHash,
    problem,
  };
}

/** The first live resource where the stored state and the log's fold differ, in (type, id) order. */
async function compareState(
  twin: string,
  folded: readonly Resource[],
  stored: AsyncIterable<Resource>,
): Promise<VerifyProblem | undefined> {
  let i = 0;
  const differ = (
    f: Resource | undefined,
    s: Resource | undefined,
    what: string,
  ): VerifyProblem => {
    const r = (f ?? s)!;
    const seq = Math.max(f?.version ?? 0, s?.version ?? 0);
    return {
      seq,
      check: 'state',
      message: `resource ${r.type} ${r.id} ${what}; entry ${seq} is the last that wrote it`,
      investigate: `\`twinworld state ${twin} --type ${r.type}\` shows the stored resource, \`twinworld log ${twin} --after ${Math.max(0, seq - 1)} --limit 1\` the entry; the log is the record — to rebuild the state from it, import an export of the log into a new twin`,
      details: { type: r.type, id: r.id },
    };
  };
  for await (const s of stored) {
    const f = folded[i];
    const order = f === undefined ? 1 : compareResources(f, s);
    if (order < 0) return differ(f, undefined, 'is missing from the stored state');
    if (order > 0) return differ(undefined, s, 'is stored, but the log does not create it');
    i++;
    if (f!.version !== s.version)
      return differ(f, s, `is stored at version ${s.version}, the log folds it to ${f!.version}`);
    const at = firstDifference(f!.fields, s.fields, 'fields');
    if (at !== '')
      return differ(
        f,
        s,
        `differs from the log's fold at ${at}: stored ${show(pick(s.fields, at))}, the log gives ${show(pick(f!.fields, at))}`,
      );
  }
  const f = folded[i];
  return f === undefined ? undefined : differ(f, undefined, 'is missing from the stored state');
}

function show(value: unknown): string {
  return value === undefined ? 'nothing' : canonicalJson(value);
}

function pick(fields: unknown, path: string): unknown {
  let value: unknown = { fields };
  for (const part of path.split(/\.|\[|\]/).filter((p) => p !== '')) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}
