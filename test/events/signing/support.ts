// Shared fixtures for the signing tests: secrets registered once so every refusal can be checked
// for leaking any of them, and a helper that asserts a TwinError's code and path.

import { expect } from 'vitest';
import { TwinError, type TwinErrorCode } from '../../../src/errors.js';

const knownSecrets: string[] = [];

/** Registers a secret (and, for whsec_ secrets, the part after the prefix) for leak checks. */
export function secret(value: string): string {
  // Fragments shorter than 8 characters (e.g. a bare "whsec_") would match ordinary prose.
  const tail = value.startsWith('whsec_') ? value.slice('whsec_'.length) : '';
  for (const s of [value, tail]) if (s.length >= 8) knownSecrets.push(s);
  return value;
}

export function nowSec(): number {
  return Math.floor(Date.now() / 1000);
}

export function expectNoSecretIn(err: TwinError): void {
  const rendered = `${err.message}\n${JSON.stringify(err.toJSON())}`;
  for (const s of knownSecrets) expect(rendered).not.toContain(s);
}

export function expectTwinError(fn: () => unknown, code: TwinErrorCode, path?: string): TwinError {
  let caught: unknown;
  try {
    fn();
  } catch (err) {
    caught = err;
  }
  expect(caught, 'expected a TwinError to be thrown').toBeInstanceOf(TwinError);
  const err = caught as TwinError;
  expect(err.code, err.message).toBe(code);
  if (path !== undefined) expect(err.path).toBe(path);
  expectNoSecretIn(err);
  return err;
}
