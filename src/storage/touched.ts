// The touched entries (port.ts, StoreTx.readTouched) of a backend that holds whole entries at hand
// anyway (memory) or must parse each line to learn its subject (SQLite): every entry is given whole.
import type { Entry } from '../log/write.js';
import type { TouchedEntry } from './port.js';

export function touchedOf(entries: readonly Entry[]): TouchedEntry[] {
  return entries.map((entry) => ({
    seq: entry.seq,
    subjectType: entry.subjectType,
    subjectId: entry.subjectId,
    entry,
  }));
}
