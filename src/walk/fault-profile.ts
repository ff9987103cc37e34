// How a fault-injecting receiver misbehaves, as data: answers for its first requests in order, a
// weighted mix for the rest, and a latency compared with the sender's timeout. Checked up front
// so a typo in a profile is a clear TwinError, not a silently healthy receiver.
import { TwinError } from '../errors.js';
import { isSchemeName, type SchemeName } from '../events/signing/index.js';

/**
 * One answer a receiver can give:
 * - a status (`200`, `500`, `410`), or `{ status: 429, retryAfterSec: 120 }` for Retry-After;
 * - `'timeout'`: the receiver never answers in time — the sender records `unknown`;
 * - `'reset'`: the connection drops before the receiver processes the packet — `unknown`;
 * - `'refused'`: nothing listens — the request never left: `failed` (not_sent);
 * - `'accept-then-crash'`: the receiver keeps the packet, then the connection drops, so the
 *   sender sees a reset (`unknown`) for a packet that was in fact accepted.
 */
export type Fault =
  | number
  | { readonly status: number; readonly retryAfterSec?: number }
  | 'timeout'
  | 'reset'
  | 'refused'
  | 'accept-then-crash';

export const FAULT_KINDS = ['timeout', 'reset', 'refused', 'accept-then-crash'] as const;

export interface WeightedFault {
  readonly answer: Fault;
  /** Relative weight (any positive number). */
  readonly weight: number;
}

/** A stretch of world time in which the receiver is down: every request gets `answer` (503 by default). */
interface Outage {
  /** ISO instant the outage starts (inclusive) and ends (exclusive), on the world clock. */
  readonly from: string;
  readonly until: string;
  readonly answer?: Fault;
}

export interface FaultProfile {
  /** Answers for the first requests, in order; then the mix. `[500]` fails once, then recovers. */
  readonly script?: readonly Fault[];
  /** Drawn for every request after the script; default always 200. */
  readonly mix?: readonly WeightedFault[];
  /**
   * Virtual processing time in ms, fixed or drawn uniformly from [min, max]. At or beyond the
   * sender's timeout the sender records a timeout (`unknown`), though the receiver processed it.
   */
  readonly latencyMs?: number | readonly [number, number];
  /**
   * Outages on the world clock, days long if need be: while one lasts it decides every answer,
   * and the script waits for it to end.
   */
  readonly outages?: readonly Outage[];
  /** Seeds the receiver's draws; default derived from the walk's seed and the receiver's name. */
  readonly seed?: string | number;
  /** Verify each packet's signature on the world clock; a bad one is answered 401 and not accepted. */
  readonly verify?: {
    readonly scheme: SchemeName;
    readonly secrets: readonly string[] | (() => readonly string[]);
    readonly toleranceSec?: number;
  };
}

function bad(path: string, message: string): never {
  throw new TwinError('INVALID_ARGUMENT', message, { path });
}

export function checkFault(fault: unknown, path: string): Fault {
  if (typeof fault === 'number') {
    if (!Number.isInteger(fault) || fault < 100 || fault > 599)
      bad(path, `${path}: a status must be an integer 100–599, got ${fault}`);
    return fault;
  }
  if (typeof fault === 'string') {
    if (!(FAULT_KINDS as readonly string[]).includes(fault))
      bad(
        path,
        `${path}: "${fault}" is not a fault; use a status, {status, retryAfterSec}, or one of ${FAULT_KINDS.join(', ')}`,
      );
    return fault as Fault;
  }
  if (fault !== null && typeof fault === 'object') {
    const f = fault as { status?: unknown; retryAfterSec?: unknown };
    checkFault(f.status, `${path}.status`);
    if (
      f.retryAfterSec !== undefined &&
      (typeof f.retryAfterSec !== 'number' ||
        !Number.isInteger(f.retryAfterSec) ||
        f.retryAfterSec < 0)
    ) {
      bad(
        `${path}.retryAfterSec`,
        `${path}.retryAfterSec must be a non-negative integer number of seconds`,
      );
    }
    return fault as Fault;
  }
  return bad(
    path,
    `${path} must be a status, {status, retryAfterSec}, or one of ${FAULT_KINDS.join(', ')}`,
  );
}

export function validateFaultProfile(profile: unknown, path = 'profile'): FaultProfile {
  if (profile === undefined) return {};
  if (profile === null || typeof profile !== 'object' || Array.isArray(profile))
    bad(path, `${path} must be an object {script?, mix?, outages?, latencyMs?, seed?, verify?}`);
  const p = profile as FaultProfile & Record<string, unknown>;
  for (const key of Object.keys(p)) {
    if (!['script', 'mix', 'outages', 'latencyMs', 'seed', 'verify'].includes(key))
      bad(
        `${path}.${key}`,
        `${path}.${key} is not a profile option; use script, mix, outages, latencyMs, seed or verify`,
      );
  }
  if (p.outages !== undefined) {
    if (!Array.isArray(p.outages))
      bad(`${path}.outages`, `${path}.outages must be an array of {from, until, answer?}`);
    p.outages.forEach((o, i) => {
      const at = `${path}.outages[${i}]`;
      const from = Date.parse(String((o as Partial<Outage> | null)?.from));
      const until = Date.parse(String((o as Partial<Outage> | null)?.until));
      if (!Number.isFinite(from) || !Number.isFinite(until) || until <= from)
        bad(
          at,
          `${at} needs ISO instants from < until, e.g. {from: '2026-05-04T00:00:00Z', until: '2026-05-10T00:00:00Z'}`,
        );
      if (o.answer !== undefined) checkFault(o.answer, `${at}.answer`);
    });
  }
  if (p.script !== undefined) {
    if (!Array.isArray(p.script))
      bad(`${path}.script`, `${path}.script must be an array of faults, e.g. [500, 'timeout']`);
    p.script.forEach((f, i) => checkFault(f, `${path}.script[${i}]`));
  }
  if (p.mix !== undefined) {
    if (!Array.isArray(p.mix) || p.mix.length === 0)
      bad(`${path}.mix`, `${path}.mix must be a non-empty array of {answer, weight}`);
    p.mix.forEach((w, i) => {
      if (w === null || typeof w !== 'object')
        bad(`${path}.mix[${i}]`, `${path}.mix[${i}] must be {answer, weight}`);
      checkFault(w.answer, `${path}.mix[${i}].answer`);
      if (typeof w.weight !== 'number' || !Number.isFinite(w.weight) || w.weight <= 0)
        bad(`${path}.mix[${i}].weight`, `${path}.mix[${i}].weight must be a positive number`);
    });
  }
  if (p.latencyMs !== undefined) {
    const range = typeof p.latencyMs === 'number' ? [p.latencyMs, p.latencyMs] : p.latencyMs;
    if (
      !Array.isArray(range) ||
      range.length !== 2 ||
      range.some((v) => typeof v !== 'number' || !Number.isFinite(v) || v < 0) ||
      range[0]! > range[1]!
    ) {
      bad(
        `${path}.latencyMs`,
        `${path}.latencyMs must be a non-negative number of ms or a range [min, max]`,
      );
    }
  }
  if (p.seed !== undefined && typeof p.seed !== 'string' && typeof p.seed !== 'number')
    bad(`${path}.seed`, `${path}.seed must be a string or a number`);
  if (p.verify !== undefined) {
    if (p.verify === null || typeof p.verify !== 'object' || !isSchemeName(p.verify.scheme))
      bad(
        `${path}.verify.scheme`,
        `${path}.verify needs {scheme, secrets}: scheme one of stripe, github, slack, standard-webhooks, hmac-sha256`,
      );
    if (!Array.isArray(p.verify.secrets) && typeof p.verify.secrets !== 'function')
      bad(
        `${path}.verify.secrets`,
        `${path}.verify.secrets must be an array of secrets or a function answering one`,
      );
  }
  return p;
}

/** A fault as one short label for reports: "200", "429 retry-after 120", "timeout". */
export function faultLabel(fault: Fault): string {
  if (typeof fault === 'number' || typeof fault === 'string') return String(fault);
  return fault.retryAfterSec === undefined
    ? String(fault.status)
    : `${fault.status} retry-after ${fault.retryAfterSec}`;
}
