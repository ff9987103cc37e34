// The send-once invariants, checked from a log alone: one claim per attempt, no attempt without a
// claim, dense attempt numbers, one finish per attempt, accepted_at never erased. Delivery record
// types are recognised by their `<type>.claim` writes and `<type>_attempt` resources.
import type { JsonObject } from '../log/json-value.js';
import type { Entry } from '../log/write.js';

export type InvariantRule =
  | 'one-claim-per-attempt'
  | 'attempt-without-claim'
  | 'attempt-numbers-dense'
  | 'finish-once'
  | 'accepted-at-kept';

export interface InvariantViolation {
  readonly rule: InvariantRule;
  /** 1-based line of the offending entry in the lines given. */
  readonly line: number;
  readonly twin: string;
  readonly seq: number;
  readonly message: string;
}

export interface InvariantReport {
  readonly violations: InvariantViolation[];
  /** Delivery records created, claims made and attempts finished: what the check looked at. */
  readonly deliveries: number;
  readonly claims: number;
  readonly finishes: number;
}

interface RecordState {
  attempts: number;
  current: string | null;
  acceptedAt: string | null;
}

interface TwinState {
  readonly recordTypes: Set<string>;
  readonly records: Map<string, RecordState>;
  /** attempt key → finished? */
  readonly attempts: Map<string, boolean>;
}

const TERMINAL = new Set(['succeeded', 'failed', 'unknown']);

function isRecordCreate(entry: Entry): boolean {
  const f = entry.fields;
  return (
    entry.operation === `${entry.subjectType}.create` &&
    f !== undefined &&
    f.state === 'queued' &&
    f.attempts === 0 &&
    f.currentAttempt === null &&
    'acceptedAt' in f
  );
}

/** Every resource an entry writes, with its fields (subject first, then the projection). */
function touched(entry: Entry): {
  type: string;
  id: string;
  fields: JsonObject | undefined;
  how: 'subject' | 'create' | 'update' | 'delete';
}[] {
  const out: ReturnType<typeof touched> = [
    { type: entry.subjectType, id: entry.subjectId, fields: entry.fields, how: 'subject' },
  ];
  const p = entry.projection;
  for (const r of p?.creates ?? [])
    out.push({ type: r.type, id: r.id, fields: r.fields, how: 'create' });
  for (const r of p?.updates ?? [])
    out.push({ type: r.type, id: r.id, fields: r.fields, how: 'update' });
  for (const r of p?.deletes ?? [])
    out.push({ type: r.type, id: r.id, fields: undefined, how: 'delete' });
  return out;
}

export function checkDeliveryInvariants(lines: Iterable<string | Entry>): InvariantReport {
  const twins = new Map<string, TwinState>();
  const violations: InvariantViolation[] = [];
  let deliveries = 0;
  let claims = 0;
  let finishes = 0;
  let lineNo = 0;
  for (const raw of lines) {
    lineNo++;
    if (typeof raw === 'string' && raw.trim() === '') continue;
    const entry = typeof raw === 'string' ? (JSON.parse(raw) as Entry) : raw;
    let t = twins.get(entry.twin);
    if (t === undefined)
      twins.set(
        entry.twin,
        (t = { recordTypes: new Set(), records: new Map(), attempts: new Map() }),
      );
    const fail = (rule: InvariantRule, message: string): void =>
      void violations.push({ rule, line: lineNo, twin: entry.twin, seq: entry.seq, message });

    if (isRecordCreate(entry)) {
      t.recordTypes.add(entry.subjectType);
      t.records.set(entry.subjectId, { attempts: 0, current: null, acceptedAt: null });
      deliveries++;
    }
    const claimOf = entry.operation.endsWith('.claim')
      ? entry.operation.slice(0, -'.claim'.length)
      : undefined;
    const isClaim = claimOf !== undefined && claimOf === entry.subjectType;
    if (isClaim) t.recordTypes.add(entry.subjectType);
    const claimedAttempt = new Set<string>();

    if (isClaim) {
      claims++;
      const type = entry.subjectType;
      const attemptType = `${type}_attempt`;
      const record = t.records.get(entry.subjectId) ?? {
        attempts: 0,
        current: null,
        acceptedAt: null,
      };
      t.records.set(entry.subjectId, record);
      const created = (entry.projection?.creates ?? []).filter((c) => c.type === attemptType);
      const number = entry.fields?.attempts;
      if (created.length !== 1)
        fail(
          'one-claim-per-attempt',
          `claim of ${type} ${entry.subjectId} creates ${created.length} attempts; a claim creates exactly one`,
        );
      if (record.current !== null)
        fail(
          'one-claim-per-attempt',
          `${type} ${entry.subjectId} was claimed while attempt ${record.current} was still in flight`,
        );
      if (number !== record.attempts + 1)
        fail(
          'attempt-numbers-dense',
          `claim of ${type} ${entry.subjectId} numbers its attempt ${String(number)} after ${record.attempts}; attempt numbers are dense from 1`,
        );
      for (const c of created) {
        const key = `${attemptType}\u0000${c.id}`;
        if (t.attempts.has(key))
          fail('one-claim-per-attempt', `attempt ${c.id} is claimed a second time`);
        if (c.id !== `${entry.subjectId}.${String(number)}` || c.fields?.number !== number)
          fail(
            'attempt-numbers-dense',
            `attempt ${c.id} (number ${String(c.fields?.number)}) does not match claim number ${String(number)} of ${entry.subjectId}`,
          );
        if (entry.fields?.currentAttempt !== c.id)
          fail(
            'one-claim-per-attempt',
            `claim of ${entry.subjectId} makes ${String(entry.fields?.currentAttempt)} current but creates ${c.id}`,
          );
        t.attempts.set(key, false);
        claimedAttempt.add(key);
      }
      record.attempts = typeof number === 'number' ? number : record.attempts + 1;
      record.current =
        typeof entry.fields?.currentAttempt === 'string' ? entry.fields.currentAttempt : null;
    }

    for (const r of touched(entry)) {
      // Attempts: only a claim brings one into being; each reaches a terminal state once.
      const base = r.type.endsWith('_attempt') ? r.type.slice(0, -'_attempt'.length) : undefined;
      if (base !== undefined && (t.recordTypes.has(base) || isClaim)) {
        const key = `${r.type}\u0000${r.id}`;
        if (claimedAttempt.has(key)) continue;
        if (!t.attempts.has(key)) {
          fail(
            'attempt-without-claim',
            `${entry.operation} writes attempt ${r.id}, which no claim created`,
          );
          continue;
        }
        if (r.how === 'create')
          fail(
            'attempt-without-claim',
            `${entry.operation} creates attempt ${r.id} outside a claim`,
          );
        const state = r.fields?.state;
        if (typeof state === 'string' && TERMINAL.has(state)) {
          if (t.attempts.get(key) === true)
            fail('finish-once', `attempt ${r.id} is finished a second time (${entry.operation})`);
          else finishes++;
          t.attempts.set(key, true);
        }
        continue;
      }
      // Records: accepted_at, once set, is never erased or moved; attempts never change but by a claim.
      if (!t.recordTypes.has(r.type) || r.how === 'delete') continue;
      const record = t.records.get(r.id);
      if (record === undefined || r.fields === undefined) continue;
      if ('acceptedAt' in r.fields) {
        const next = r.fields.acceptedAt;
        if (record.acceptedAt !== null && next !== record.acceptedAt)
          fail(
            'accepted-at-kept',
            `${entry.operation} changes acceptedAt of ${r.id} from ${record.acceptedAt} to ${String(next)}; it is never erased once set`,
          );
        else if (typeof next === 'string') record.acceptedAt = next;
      }
      if (
        !(isClaim && r.how === 'subject') &&
        'attempts' in r.fields &&
        r.fields.attempts !== record.attempts &&
        !(isRecordCreate(entry) && r.how === 'subject')
      ) {
        fail(
          'attempt-numbers-dense',
          `${entry.operation} sets attempts of ${r.id} to ${String(r.fields.attempts)} outside a claim`,
        );
      }
      if (!(isClaim && r.how === 'subject') && 'currentAttempt' in r.fields)
        record.current =
          typeof r.fields.currentAttempt === 'string' ? r.fields.currentAttempt : null;
    }
  }
  return { violations, deliveries, claims, finishes };
}
