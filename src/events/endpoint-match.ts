// Endpoint matches: which endpoints of a kind take an event beyond their event filter (a GitHub
// repository hook takes its own repository's events, a Slack subscription its own app's). A
// kind declares one or several matches; an endpoint takes the event when any one of them holds.
import { TwinError } from '../errors.js';
import { canonicalJson } from '../log/canonical-json.js';
import type { JsonObject } from '../log/json-value.js';
import { valueAt } from './render.js';

/**
 * One condition: the endpoint's `field` equals the value at `bodyPath` in the rendered event,
 * or, when the field holds a list (an organization hook listing several repositories), the
 * list holds that value; a field that is null takes events that lack the value.
 */
interface FieldMatch {
  readonly field: string;
  readonly bodyPath: string;
}

/** One match: a single condition, or several that must all hold. */
export type EndpointMatch = FieldMatch | readonly FieldMatch[];

function conditionHolds(
  fields: Readonly<JsonObject>,
  condition: FieldMatch,
  body: unknown,
): boolean {
  const held = fields[condition.field];
  const value = valueAt(body, condition.bodyPath);
  // A field explicitly null asks for events without the value (GitHub's hooks take every event
  // of their repository but a ping, which names one hook).
  if (held === null && (value === undefined || value === null)) return true;
  // An event without the value is not about any particular endpoint's subject.
  if (held === undefined || value === undefined) return false;
  const wanted = canonicalJson(value);
  if (Array.isArray(held)) return held.some((item) => canonicalJson(item) === wanted);
  return canonicalJson(held) === wanted;
}

function matchHolds(fields: Readonly<JsonObject>, match: EndpointMatch, body: unknown): boolean {
  const conditions: readonly FieldMatch[] = Array.isArray(match) ? match : [match as FieldMatch];
  return conditions.every((c) => conditionHolds(fields, c, body));
}

/** True when the kind declares no match, or when any declared match holds for this endpoint. */
export function endpointMatches(
  matches: readonly EndpointMatch[] | undefined,
  fields: Readonly<JsonObject>,
  body: unknown,
): boolean {
  if (matches === undefined || matches.length === 0) return true;
  return matches.some((m) => matchHolds(fields, m, body));
}

function bad(path: string, message: string): never {
  throw new TwinError('INVALID_CONFIG', message, { path });
}

function checkCondition(value: unknown, path: string): void {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    bad(
      path,
      `${path} must be {field, bodyPath}, e.g. { field: 'repository_id', bodyPath: 'repository.id' }`,
    );
  }
  const c = value as Record<string, unknown>;
  for (const key of ['field', 'bodyPath'] as const) {
    if (typeof c[key] !== 'string' || c[key] === '')
      bad(`${path}.${key}`, `${path}.${key} must be a non-empty string`);
  }
}

/** INVALID_CONFIG naming the offending entry for anything but a list of matches. */
export function validateEndpointMatches(value: unknown, path: string): void {
  if (value === undefined) return;
  if (!Array.isArray(value) || value.length === 0) {
    bad(
      path,
      `${path} must list at least one match: {field, bodyPath}, or an array of them that must all hold`,
    );
  }
  value.forEach((m: unknown, i: number) => {
    if (!Array.isArray(m)) return checkCondition(m, `${path}[${i}]`);
    if (m.length === 0)
      bad(
        `${path}[${i}]`,
        `${path}[${i}] is an empty group; list the conditions that must all hold, or remove it`,
      );
    m.forEach((c: unknown, j: number) => checkCondition(c, `${path}[${i}][${j}]`));
  });
}
