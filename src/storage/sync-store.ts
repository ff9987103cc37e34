// Adapts a backend that answers synchronously (SQLite, memory) to the asynchronous port. Its
// sections run their body at once inside the backend's transaction; a body that returns a promise
// keeps the transaction open until it settles, and the store runs one section at a time per
// process so nothing else touches the connection meanwhile.
import { TwinError } from '../errors.js';
import type { Entry } from '../log/write.js';
import type { Resource } from '../state/resource.js';
import type {
  Awaitable,
  IndexDelta,
  RangeQuery,
  RangeRow,
  StoreScope,
  StoreTx,
  TouchedEntry,
  TwinStore,
} from './port.js';
import { isPromise } from './secret-store.js';

/** A section handle whose reads answer at once. */
export interface SyncTx extends StoreTx {
  head(): number;
  readEntries(afterSeq: number, limit: number): Entry[];
  readTouched(afterSeq: number, limit: number): TouchedEntry[];
  getResource(type: string, id: string): Resource | undefined;
  listResources(type: string): Resource[];
  lookup(type: string, index: string, key: string): Resource[];
  lookupUpTo(type: string, index: string, maxKey: string, limit: number): Resource[];
  range(type: string, index: string, query: RangeQuery): RangeRow[];
  allResources(type: string): Resource[];
  getMeta(key: string): string | undefined;
  append(entry: Entry, body: string): void;
  putResource(resource: Resource, delta: IndexDelta, subjectOf?: number): void;
}

/** What a synchronous backend provides for one twin. */
export interface SyncEngine {
  readonly name: string;
  readonly tx: SyncTx;
  /** Opens a transaction: exclusive across processes, or a read snapshot. */
  begin(readOnly: boolean): void;
  commit(): void;
  rollback(): void;
  /** Up to `limit` live resources after (type, id) in (type, id) byte order; undefined = from the start. */
  livePage(after: { type: string; id: string } | undefined, limit: number): Resource[];
  /** Up to `limit` entry bodies with seq > afterSeq, ascending. */
  bodyPage(afterSeq: number, limit: number): string[];
  entriesBySubject(type: string, id: string): Entry[];
  close(): void;
}

const PAGE = 1_000;

export class SyncTwinStore implements TwinStore {
  private busy = false;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly engine: SyncEngine) {}

  get name(): string {
    return this.engine.name;
  }

  async transact<T>(section: (tx: StoreTx) => Awaitable<T>, scope: StoreScope = {}): Promise<T> {
    while (this.busy) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.busy = true;
    try {
      this.engine.begin(scope.readOnly === true);
      try {
        let result = section(this.engine.tx);
        if (isPromise(result)) result = await result;
        this.engine.commit();
        return result;
      } catch (error) {
        this.engine.rollback();
        throw error;
      }
    } finally {
      this.busy = false;
      this.waiting.shift()?.();
    }
  }

  async head(): Promise<number> {
    return this.transact((tx) => tx.head(), { readOnly: true });
  }

  async *entryBodies(afterSeq: number): AsyncIterable<string> {
    let after = afterSeq;
    for (;;) {
      const page = await this.transact(() => this.engine.bodyPage(after, PAGE), { readOnly: true });
      yield* page;
      if (page.length < PAGE) return;
      after += page.length;
    }
  }

  async *liveResources(from?: { type: string; id: string }): AsyncIterable<Resource> {
    let after = from;
    for (;;) {
      const page = await this.transact(() => this.engine.livePage(after, PAGE), { readOnly: true });
      yield* page;
      if (page.length < PAGE) return;
      const last = page[page.length - 1]!;
      after = { type: last.type, id: last.id };
    }
  }

  async entriesBySubject(type: string, id: string): Promise<Entry[]> {
    return this.transact(() => this.engine.entriesBySubject(type, id), { readOnly: true });
  }

  async close(): Promise<void> {
    this.engine.close();
  }
}

export function readOnlyError(twin: string): TwinError {
  return new TwinError(
    'INVALID_ARGUMENT',
    `twin "${twin}": this section is read-only; write through applyAtomic`,
  );
}
