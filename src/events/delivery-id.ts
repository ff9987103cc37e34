// Delivery record ids that sort by creation time. The id is ours (no vendor shapes it), so its
// order is free to choose: with the time first, a new record's key and its attempts' keys land at
// the end of their range in the (type, id) index, where consecutive writes share a leaf, instead of
// at a random leaf each (measured on SQLite: docs/throughput.md). Same length and alphabet as before.
import { BASE62, type IdSource } from '../world/ids.js';

/** 62^8 ms is about 6,900 years: eight digits hold any clock a world runs on. */
const TIME_DIGITS = 8;

/** Milliseconds as fixed-width base62, whose ASCII order is numeric order. */
function timePart(ms: number): string {
  let rest = Math.max(0, Math.floor(ms));
  let out = '';
  for (let i = 0; i < TIME_DIGITS; i++) {
    out = BASE62[rest % 62]! + out;
    rest = Math.floor(rest / 62);
  }
  return out;
}

/**
 * `prefix` + 8 time digits + 16 random ones. The draw is the same 24 bytes a random id takes, so
 * every id drawn after it from the world's source is the one it was before ids were ordered.
 */
export function deliveryRecordId(ids: IdSource, prefix: string): string {
  const id = `${prefix}${timePart(ids.timeMs())}${ids.vendorId('', 24).slice(TIME_DIGITS)}`;
  ids.mint?.(id);
  return id;
}
