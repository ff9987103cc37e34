// Canonical JSON: keys sorted at every depth, so equal values always serialize to equal bytes.
// Entries, hashes and payload digests all go through here. Most values already have their keys in
// order (records are built that way, and anything parsed back from a canonical line is), so a walk
// that only compares keys decides whether V8's own JSON.stringify — which keeps insertion order —
// already writes the canonical bytes; only a value with a key out of order is serialized by hand,
// sorting just the objects that need it. Byte for byte what fast-json-stable-stringify writes
// (a test holds the two equal).
import { createHash } from 'node:crypto';

/** Deeper than any value a write may hold (64): past it, the careful path answers (and finds cycles). */
const MAX_ORDERED_DEPTH = 100;

export function canonicalJson(value: unknown): string {
  return inOrder(value, 0) ? JSON.stringify(value) : sorted(value, [])!;
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** Whether JSON.stringify writes `node` canonically: every object's keys ascending, no toJSON. */
function inOrder(node: unknown, depth: number): boolean {
  if (node === null || typeof node !== 'object') return true;
  if (depth > MAX_ORDERED_DEPTH || typeof (node as { toJSON?: unknown }).toJSON === 'function')
    return false;
  const proto: unknown = Object.getPrototypeOf(node);
  if (Array.isArray(node)) {
    for (const item of node) if (!inOrder(item, depth + 1)) return false;
    return true;
  }
  // A boxed primitive or a class instance: JSON.stringify and the canonical rules part ways.
  if (proto !== Object.prototype && proto !== null) return false;
  let previous: string | undefined;
  for (const key of Object.keys(node)) {
    // Integer-like keys come first in V8's order whatever their text: "2" before "10" fails here.
    if (previous !== undefined && !(previous < key)) return false;
    previous = key;
    if (!inOrder((node as Record<string, unknown>)[key], depth + 1)) return false;
  }
  return true;
}

/** The careful path: JSON's rules (toJSON, undefined, non-finite numbers) with keys sorted. */
function sorted(input: unknown, stack: object[]): string | undefined {
  let node = input;
  if (
    node !== null &&
    typeof node === 'object' &&
    typeof (node as { toJSON?: unknown }).toJSON === 'function'
  )
    node = (node as { toJSON: () => unknown }).toJSON();
  // JSON's own rules for what is not an object: undefined and functions vanish, NaN is null.
  if (node === null || typeof node !== 'object') return JSON.stringify(node) as string | undefined;
  if (stack.includes(node)) throw new TypeError('Converting circular structure to JSON');
  stack.push(node);
  let out: string;
  if (Array.isArray(node)) {
    out = '[';
    for (let i = 0; i < node.length; i++)
      out += (i === 0 ? '' : ',') + (sorted(node[i], stack) ?? 'null');
    out += ']';
  } else {
    const keys = Object.keys(node).sort();
    let body = '';
    for (const key of keys) {
      const value = sorted((node as Record<string, unknown>)[key], stack);
      if (value === undefined) continue;
      body += (body === '' ? '' : ',') + JSON.stringify(key) + ':' + value;
    }
    out = `{${body}}`;
  }
  stack.pop();
  return out;
}
