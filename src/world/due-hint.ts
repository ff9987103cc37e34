// What a twin's due index held just after this process's last commit, read in that commit (on a
// store whose reads are round trips). A process alone on a twin claims due work in sections that
// would otherwise need two round trips, holding the twin's lock across the first answer: the pick,
// then the commit. With the due rows already in hand, the claim's section goes as one conditional
// round trip (docs/throughput.md, "The due pick in the commit before").
//
// A hint answers a pick only when it is exact: read at the head the section decides on (its commit
// is conditional on that head, so nothing can have changed in between), and holding at least as
// many rows as the pick wants. The pick's bound is later than the hint's (time moves on), and
// every key up to the hint's bound sorts before any key after it, so the first rows are the same.
import type { Resource } from '../state/resource.js';
import type { Awaitable, StoreTx } from '../storage/port.js';
import { isoAt, type Clock } from './clock.js';
import { isPromise } from '../storage/secret-store.js';

/** Rows a hint reads at most, whatever limit a pick asked for. */
const MAX_HINT_ROWS = 256;
/** Commits in a row that read rows no pick asked for before the reads stop (a worker stopped). */
const MAX_UNPICKED = 16;

interface Interest {
  readonly type: string;
  readonly index: string;
  limit: number;
}

/** What one commit was asked to read, and the rows once it committed. */
interface HintRead {
  readonly type: string;
  readonly index: string;
  readonly maxKey: string;
  rows?: readonly Resource[];
}

export class DueHints {
  private interest: Interest | undefined;
  /** The read of the last commit, and the head that commit made. */
  private hint: { readonly head: number; readonly read: HintRead } | undefined;
  /** The read the section in flight asked its commit for (sections of a twin go one at a time). */
  private pending: HintRead | undefined;
  /** Commits that read rows since the last pick. */
  private unpicked = 0;

  /** A pick was made on this twin: later commits read its index for the next one. */
  noted(type: string, index: string, limit: number): void {
    this.unpicked = 0;
    const want = Math.min(Math.max(0, Math.floor(limit)), MAX_HINT_ROWS);
    const i = this.interest;
    if (i !== undefined && i.type === type && i.index === index) i.limit = Math.max(i.limit, want);
    else this.interest = { type, index, limit: want };
  }

  /**
   * Asks `tx` to read the index at commit, up to the clock's time, if a pick was made here and the
   * store can; what it read is on the returned record once the commit succeeded.
   */
  private attach(tx: StoreTx, clock: Clock): HintRead | undefined {
    const i = this.interest;
    if (i === undefined || i.limit === 0 || tx.lookupAtCommit === undefined) return undefined;
    if (++this.unpicked > MAX_UNPICKED) {
      this.interest = undefined;
      return undefined;
    }
    const read: HintRead = { type: i.type, index: i.index, maxKey: isoAt(clock.now()) };
    tx.lookupAtCommit(read.type, read.index, read.maxKey, i.limit, (rows) => (read.rows = rows));
    return read;
  }

  /**
   * Runs a write section; when `quiet` (it goes optimistically, this process the twin's only
   * writer), its commit reads the due index up to the clock's time once its decides are done.
   */
  during<O>(tx: StoreTx, quiet: boolean, clock: Clock, run: () => Awaitable<O>): Awaitable<O> {
    this.pending = undefined;
    const ran = run();
    if (!quiet) return ran;
    const attach = (outcome: O): O => {
      this.pending = this.attach(tx, clock);
      return outcome;
    };
    return isPromise(ran) ? ran.then(attach) : attach(ran);
  }

  /** The section's commit made `head` the twin's head. */
  committed(head: number): void {
    const read = this.pending;
    this.pending = undefined;
    this.hint = read?.rows === undefined ? undefined : { head, read };
  }

  /** The pick's rows, when the hint read at `head` answers it exactly; otherwise undefined. */
  answer(
    head: number,
    type: string,
    index: string,
    maxKey: string,
    limit: number,
  ): readonly Resource[] | undefined {
    if (this.hint?.head !== head) return undefined;
    const { read } = this.hint;
    if (read.type !== type || read.index !== index || read.rows === undefined) return undefined;
    if (maxKey < read.maxKey || read.rows.length < limit) return undefined;
    return read.rows.slice(0, limit);
  }
}
