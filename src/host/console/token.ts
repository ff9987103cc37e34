// The console's access token: drawn at start, printed once, and required on every request to the
// page and its API. Compared in constant time, so response timing says nothing about a guess.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** A fresh token: 24 random bytes, URL-safe. Not a kernel path: the world's ids are not used. */
export function newConsoleToken(): string {
  return randomBytes(24).toString('base64url');
}

/** Whether `given` is the token; both are hashed first, so their lengths leak nothing either. */
export function tokenMatches(expected: string, given: string | null | undefined): boolean {
  if (given === null || given === undefined || given === '') return false;
  const a = createHash('sha256').update(expected).digest();
  const b = createHash('sha256').update(given).digest();
  return timingSafeEqual(a, b);
}
