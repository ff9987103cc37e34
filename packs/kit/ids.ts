// Id shapes the kernel's id source does not draw directly: GitHub's integers, Slack's upper-case
// T…/U…/C… ids, hex tokens. All come from world.ids, so a seeded world writes the same ids, and
// each is registered as minted (IdSource.mint): a resource created under one is taken for new, so
// on PostgreSQL its write needs no read first (docs/throughput.md).
import type { IdSource } from '../../src/index.js';

const UPPER = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ';

/** A positive integer id in [10^8, 10^9), as GitHub's repository, issue and hook ids look. */
export function numericId(ids: IdSource): number {
  const id = 100_000_000 + Math.floor(ids.random() * 900_000_000);
  ids.mint?.(String(id));
  return id;
}

/** `prefix` + upper-case alphanumerics, e.g. Slack's T0TWIN0001. */
export function upperId(ids: IdSource, prefix: string, length = 10): string {
  const raw = ids.bytes(length);
  let out = prefix;
  for (let i = 0; i < length; i++) out += UPPER[raw[i]! % UPPER.length];
  ids.mint?.(out);
  return out;
}

export function hexToken(ids: IdSource, bytes: number): string {
  return ids.bytes(bytes).toString('hex');
}
