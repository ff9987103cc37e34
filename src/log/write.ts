// The write an author appends and the entry it becomes: the shape of every fact in a twin's log,
// and the validation that refuses a bad write before anything is appended.
import { TwinError } from '../errors.js';
import { canonicalJson, canonicalOwned } from './canonical-json.js';
import { isChainHash } from './chain.js';
import { isoProblem } from './iso-time.js';
import {
  assertJson,
  assertWellFormed,
  isPlainObject,
  type JsonObject,
  type SizeBound,
} from './json-value.js';

/** Largest canonical JSON size of one write. Large enough for any vendor webhook body (Stripe caps
 * event payloads well below this), small enough that one runaway write cannot bloat a log. */
export const MAX_WRITE_BYTES = 1024 * 1024;

export interface ResourceRef {
  readonly type: string;
  readonly id: string;
}

export interface ProjectedResource extends ResourceRef {
  readonly fields: JsonObject;
}

/** Other resources the same fact causes: `creates` sets their fields outright, `updates` merges. */
export interface Projection {
  readonly creates?: readonly ProjectedResource[];
  readonly updates?: readonly ProjectedResource[];
  readonly deletes?: readonly ResourceRef[];
}

export interface Write {
  readonly operation: string;
  readonly subjectType: string;
  readonly subjectId: string;
  /** Merged key by key into the subject; the subject is created if it does not exist. */
  readonly fields?: JsonObject;
  readonly delete?: boolean;
  readonly projection?: Projection;
  /** ISO 8601; taken from the world clock when omitted. */
  readonly occurredAt?: string;
  readonly actor?: string;
}

export interface Entry extends Write {
  readonly seq: number;
  readonly writeId: string;
  readonly twin: string;
  readonly recordedAt: string;
  readonly occurredAt: string;
  readonly actor: string;
  /**
   * SHA-256 (hex) of the previous entry's canonical line; GENESIS for entry 1 (see chain.ts).
   * Absent only in entries written before the chain, which imports accept and link.
   */
  readonly prev?: string;
}

const WRITE_KEYS = new Set([
  'operation',
  'subjectType',
  'subjectId',
  'fields',
  'delete',
  'projection',
  'occurredAt',
  'actor',
]);
const ENTRY_KEYS = new Set([...WRITE_KEYS, 'seq', 'writeId', 'twin', 'recordedAt', 'prev']);
const PROJECTION_KEYS = new Set(['creates', 'updates', 'deletes']);
const NAME = /^[A-Za-z0-9_][A-Za-z0-9_.:\-]{0,127}$/;

function invalid(path: string, message: string): never {
  throw new TwinError('INVALID_WRITE', message, { path });
}

function requireName(value: unknown, path: string, example: string): string {
  if (typeof value !== 'string' || value.length === 0) {
    invalid(path, `${path} is missing; give a non-empty string such as "${example}"`);
  }
  if (!NAME.test(value)) {
    invalid(
      path,
      `${path} "${value.slice(0, 40)}" may only hold letters, digits and _ . : - (at most 128, not starting with a separator)`,
    );
  }
  return value;
}

function requireId(value: unknown, path: string): string {
  if (typeof value !== 'string' || value.length === 0) {
    invalid(
      path,
      `${path} is missing; give the resource's id as a non-empty string such as "cus_123"`,
    );
  }
  if (value.length > 256)
    invalid(path, `${path} is ${value.length} characters long; ids are at most 256`);
  assertWellFormed(value, path);
  return value;
}

/**
 * A value out of JSON.parse is JSON by construction, but not yet within limits: it may be nested
 * too deep, hold a lone surrogate (`"\ud800"` parses to one), a number that overflowed to
 * Infinity (`1e400`), or a `__proto__` key — so parsed values are walked too. `bound` collects an
 * upper bound of the entry's size so that only large entries are measured exactly.
 */
function requireFields(value: unknown, path: string, bound: SizeBound | undefined): JsonObject {
  if (!isPlainObject(value))
    invalid(path, `${path} must be a plain JSON object of the fields to set`);
  assertJson(value, path, {}, bound);
  return value as JsonObject;
}

function requireTime(value: unknown, path: string, fix: string): void {
  const problem = isoProblem(value);
  if (problem === undefined) return;
  if (problem === 'calendar') {
    invalid(
      path,
      `${path} "${String(value)}" is not a real calendar time; give a month 1–12, a day that month has, hours 0–23, minutes and seconds 0–59${fix === '' ? '' : ` (${fix})`}`,
    );
  }
  invalid(
    path,
    `${path} must be an ISO 8601 timestamp such as "2026-01-01T00:00:00.000Z"${fix === '' ? '' : ` (${fix})`}`,
  );
}

function checkRefs(
  value: unknown,
  path: string,
  withFields: boolean,
  bound: SizeBound | undefined,
): void {
  if (!Array.isArray(value))
    invalid(path, `${path} must be an array of {type, id${withFields ? ', fields' : ''}}`);
  value.forEach((item, i) => {
    const at = `${path}[${i}]`;
    if (!isPlainObject(item))
      invalid(at, `${at} must be an object {type, id${withFields ? ', fields' : ''}}`);
    const allowed = withFields ? ['type', 'id', 'fields'] : ['type', 'id'];
    for (const key of Object.keys(item)) {
      if (!allowed.includes(key))
        invalid(
          `${at}.${key}`,
          `${at} has an unknown key "${key}"; allowed: ${allowed.join(', ')}`,
        );
    }
    requireName(item.type, `${at}.type`, 'customer');
    requireId(item.id, `${at}.id`);
    if (withFields) requireFields(item.fields ?? {}, `${at}.fields`, bound);
  });
}

/** Validates shape and JSON-ness; throws INVALID_WRITE naming the path. */
export function validateWrite(input: unknown, path = 'write'): Write {
  if (!isPlainObject(input))
    invalid(
      path,
      `${path} must be an object like {"operation":"customer.create","subjectType":"customer","subjectId":"cus_1","fields":{}}`,
    );
  return checkWrite(input, path, WRITE_KEYS, undefined);
}

function checkWrite(
  input: Record<string, unknown>,
  path: string,
  keys: ReadonlySet<string>,
  bound: SizeBound | undefined,
): Write {
  for (const key of Object.keys(input)) {
    if (!keys.has(key)) {
      invalid(
        `${path}.${key}`,
        `${path} has an unknown key "${key}"; ${keys === WRITE_KEYS ? 'a write' : 'an entry'} may hold only ${[...keys].join(', ')}`,
      );
    }
  }
  requireName(input.operation, `${path}.operation`, 'customer.create');
  requireName(input.subjectType, `${path}.subjectType`, 'customer');
  requireId(input.subjectId, `${path}.subjectId`);
  if (input.fields !== undefined) requireFields(input.fields, `${path}.fields`, bound);
  if (input.delete !== undefined && typeof input.delete !== 'boolean')
    invalid(`${path}.delete`, `${path}.delete must be true or false`);
  if (input.delete === true && input.fields !== undefined) {
    invalid(
      `${path}.fields`,
      `${path} both deletes its subject and sets fields; send the delete alone`,
    );
  }
  if (input.projection !== undefined) {
    const projection = input.projection;
    const at = `${path}.projection`;
    if (!isPlainObject(projection))
      invalid(at, `${at} must be an object with creates, updates and/or deletes`);
    for (const key of Object.keys(projection)) {
      if (!PROJECTION_KEYS.has(key))
        invalid(
          `${at}.${key}`,
          `${at} has an unknown key "${key}"; allowed: creates, updates, deletes`,
        );
    }
    if (projection.creates !== undefined)
      checkRefs(projection.creates, `${at}.creates`, true, bound);
    if (projection.updates !== undefined)
      checkRefs(projection.updates, `${at}.updates`, true, bound);
    if (projection.deletes !== undefined)
      checkRefs(projection.deletes, `${at}.deletes`, false, bound);
  }
  if (input.occurredAt !== undefined)
    requireTime(input.occurredAt, `${path}.occurredAt`, 'or omit it to use the world clock');
  if (input.actor !== undefined) requireName(input.actor, `${path}.actor`, 'api');
  // Every key and value was checked above: the unknown input is a Write now.
  return input as unknown as Write;
}

/**
 * Validates an entry parsed from a file: a write plus its log position, held to every limit a
 * live write is held to — the 1 MiB size of its canonical line included — so an import can never
 * put into a twin what a write could not.
 */
export function validateEntry(input: unknown, path = 'entry'): Entry {
  if (!isPlainObject(input)) invalid(path, `${path} must be a JSON object`);
  const { seq, writeId, twin, recordedAt } = input;
  if (typeof seq !== 'number' || !Number.isSafeInteger(seq) || seq < 1)
    invalid(`${path}.seq`, `${path}.seq must be a positive integer`);
  if (typeof writeId !== 'string' || writeId.length === 0)
    invalid(`${path}.writeId`, `${path}.writeId must be a non-empty string`);
  assertWellFormed(writeId, `${path}.writeId`);
  if (typeof twin !== 'string' || twin.length === 0)
    invalid(`${path}.twin`, `${path}.twin must be a non-empty string`);
  assertWellFormed(twin, `${path}.twin`);
  requireTime(recordedAt, `${path}.recordedAt`, '');
  if (input.prev !== undefined && !isChainHash(input.prev))
    invalid(
      `${path}.prev`,
      `${path}.prev must be the previous entry's SHA-256 as 64 lowercase hex digits (64 zeros for entry 1), or absent in a log written before the chain`,
    );
  // Everything outside fields and projections is short: ids, names, times (≤ 6 bytes a unit).
  const bound: SizeBound = {
    bytes: 1024 + 6 * (writeId.length + twin.length + String(input.subjectId ?? '').length),
  };
  const checked = checkWrite(input, path, ENTRY_KEYS, bound);
  if (checked.occurredAt === undefined)
    invalid(`${path}.occurredAt`, `${path}.occurredAt is missing`);
  if (checked.actor === undefined) invalid(`${path}.actor`, `${path}.actor is missing`);
  if (bound.bytes > MAX_WRITE_BYTES) checkSize(canonicalJson(input), path);
  // Checked key by key above (as a write, plus the entry's own keys): the input is an Entry.
  return input as unknown as Entry;
}

function checkSize(serialized: string, path: string): void {
  const bytes = Buffer.byteLength(serialized, 'utf8');
  if (bytes > MAX_WRITE_BYTES) {
    throw new TwinError(
      'PAYLOAD_TOO_LARGE',
      `${path} serializes to ${bytes} bytes, over the ${MAX_WRITE_BYTES}-byte limit of one write; keep large blobs outside the log and store a reference`,
      { path, details: { bytes, limit: MAX_WRITE_BYTES } },
    );
  }
}

/**
 * Builds an entry and its canonical line in one pass: only `fields` and `projection` need key
 * sorting, the rest is assembled in sorted key order. The entry owns fresh copies of both (made
 * with their JSON), so later changes to the caller's objects cannot reach history.
 * Equal, byte for byte, to canonicalJson(entry) — a test holds it to that.
 */
export function buildEntry(
  write: Write,
  meta: { seq: number; writeId: string; twin: string; recordedAt: string; prev: string },
  path: string,
): { entry: Entry; line: string } {
  const fields = write.fields === undefined ? undefined : canonicalOwned(write.fields);
  const projection = write.projection === undefined ? undefined : canonicalOwned(write.projection);
  const occurredAt = write.occurredAt ?? meta.recordedAt;
  const actor = write.actor ?? 'api';
  const q = JSON.stringify;
  const line =
    `{"actor":${q(actor)}` +
    (write.delete === undefined ? '' : `,"delete":${write.delete}`) +
    (fields === undefined ? '' : `,"fields":${fields.json}`) +
    `,"occurredAt":${q(occurredAt)},"operation":${q(write.operation)},"prev":"${meta.prev}"` +
    (projection === undefined ? '' : `,"projection":${projection.json}`) +
    `,"recordedAt":${q(meta.recordedAt)},"seq":${meta.seq},"subjectId":${q(write.subjectId)},"subjectType":${q(write.subjectType)},"twin":${q(meta.twin)},"writeId":${q(meta.writeId)}}`;
  // UTF-8 takes at most 3 bytes per UTF-16 unit: short lines need no exact count.
  if (line.length * 3 > MAX_WRITE_BYTES) checkSize(line, path);
  const entry: Entry = {
    operation: write.operation,
    subjectType: write.subjectType,
    subjectId: write.subjectId,
    ...(fields === undefined ? {} : { fields: fields.copy as JsonObject }),
    ...(write.delete === undefined ? {} : { delete: write.delete }),
    ...(projection === undefined ? {} : { projection: projection.copy as Projection }),
    occurredAt,
    actor,
    seq: meta.seq,
    writeId: meta.writeId,
    twin: meta.twin,
    recordedAt: meta.recordedAt,
    prev: meta.prev,
  };
  return { entry, line };
}
