// Values spelled into SQL text. Writes go to the server as multi-statement simple queries (one round
// trip for a whole commit), so their values are literals: strings quoted with standard_conforming_strings
// on (the session sets it), numbers checked to be safe integers. Text PostgreSQL cannot hold is refused
// or encoded here, before anything is sent.
import type { Resource } from '../../state/resource.js';
import { storeError } from './store-error.js';

/** No unpaired surrogates (String.prototype.isWellFormed, Node 20; the ES2024.String lib types it). */
export function wellFormed(value: string): boolean {
  return value.isWellFormed();
}

/** A string literal; backslashes are plain characters under standard_conforming_strings. */
export function lit(value: string): string {
  return `'${value.replace(/'/g, "''")}'`;
}

export function litOrNull(value: string | null): string {
  return value === null ? 'NULL' : lit(value);
}

export function int(value: number): string {
  if (!Number.isSafeInteger(value))
    throw storeError('INVALID_ARGUMENT', `${value} is not a safe integer`);
  return String(value);
}

/**
 * PostgreSQL text holds neither U+0000 nor unpaired surrogates (the driver would send U+FFFD, making
 * two ids one). Names and ids are refused; index keys, compared only for equality, are encoded instead.
 */
export function checkText(value: string, path: string): string {
  if (value.includes('\u0000') || !wellFormed(value)) {
    throw storeError(
      'INVALID_WRITE',
      `${path} holds a NUL character or an unpaired UTF-16 surrogate, which PostgreSQL cannot store; use plain Unicode text`,
      { path },
    );
  }
  return value;
}

/** Injective: plain keys stay as they are; any other is `\` + its JSON (plain keys hold no backslash). */
export function encodeKey(key: string): string {
  if (!key.includes('\\') && !key.includes('\u0000') && wellFormed(key)) return key;
  return `\\${JSON.stringify(key)}`;
}

export interface ResourceRow {
  readonly type: string;
  readonly id: string;
  readonly version: number;
  readonly deleted: boolean;
  readonly fields: string;
}

export function toResource(row: ResourceRow): Resource {
  return {
    type: row.type,
    id: row.id,
    version: row.version,
    deleted: row.deleted,
    fields: JSON.parse(row.fields) as Resource['fields'],
  };
}
