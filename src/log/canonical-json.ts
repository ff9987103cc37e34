// Canonical JSON: keys sorted at every depth, so equal values always serialize to equal bytes.
// Entries, hashes and payload digests all go through here.
import stringify from 'fast-json-stable-stringify';
import { createHash } from 'node:crypto';

export function canonicalJson(value: unknown): string {
  return stringify(value);
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
