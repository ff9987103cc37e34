// The hash chain that makes a log tamper-evident. Every entry carries `prev`: the SHA-256 (64
// lowercase hex digits) of the previous entry's canonical JSON line — the exact bytes export writes
// for it, `prev` included, without the newline. Entry 1's `prev` is GENESIS (64 zeros). So a
// changed byte in entry N no longer hashes to entry N+1's `prev`, and a removed entry breaks the
// link across the gap. The chain is a pure function of the entries' bytes, so it is the same on
// every backend. Appending never rereads or rehashes the log: the process that wrote the newest
// entry remembers its hash, another reads that one entry — or, on a store that may hide it from a
// tenant's section (PostgreSQL), the chain head each commit records beside the log
// (`CHAIN_META_KEY`: "<seq> <hash>"). Logs written before the chain (entries without `prev`) are
// accepted: import links them, and `twinworld verify` reports a stored prefix of them.
import { sha256Hex } from './canonical-json.js';

export const GENESIS = '0'.repeat(64);

/** Meta key of the newest entry's seq and hash, where a store records it with each commit. */
export const CHAIN_META_KEY = 'chain.head';

const HASH = /^[0-9a-f]{64}$/;

export interface ChainHead {
  readonly seq: number;
  readonly hash: string;
}

/** The hash an entry's successor carries as `prev`: SHA-256 of its canonical line, as hex. */
export function lineHash(line: string): string {
  return sha256Hex(line);
}

export function isChainHash(value: unknown): value is string {
  return typeof value === 'string' && HASH.test(value);
}

export function encodeChainHead(head: ChainHead): string {
  return `${head.seq} ${head.hash}`;
}

/** The recorded chain head, or undefined when there is none or it is not one. */
export function decodeChainHead(value: string | undefined): ChainHead | undefined {
  if (value === undefined) return undefined;
  const [seq, hash, ...rest] = value.split(' ');
  const n = Number(seq);
  if (rest.length > 0 || !Number.isSafeInteger(n) || n < 1 || !isChainHash(hash)) return undefined;
  return { seq: n, hash };
}
