// Why a SQLite file of a world root could not be opened, said as what the user can act on: a file
// that is no SQLite database (or a damaged one), a folder where the file belongs, or a root this
// process may not write in. The driver's own words ("SQLITE_NOTADB: file is not a database") named
// neither the file nor what it is for.
import { statSync } from 'node:fs';
import { TwinError } from '../../errors.js';

const NOT_A_DATABASE = /^SQLITE_(NOTADB|CORRUPT)/;

/**
 * The refusal for a file that is a folder, no SQLite database or a damaged one; undefined for any
 * other failure (a busy lock, a full disk), which the caller's own handling knows. `what`: what the
 * file holds, e.g. `twin "stripe"'s log`.
 */
export function damagedFile(error: unknown, file: string, what: string): TwinError | undefined {
  const code = (error as { code?: unknown }).code;
  const driverCode = typeof code === 'string' ? code : undefined;
  const details = { file, ...(driverCode === undefined ? {} : { driverCode }) };
  let folder = false;
  try {
    folder = statSync(file).isDirectory();
  } catch {
    // Missing, or not ours to look at: nothing says it is a folder.
  }
  if (folder)
    return new TwinError(
      'STORE_FAILED',
      `${file} is a folder, but that is where the root keeps ${what} (a SQLite file); move the folder out of the root`,
      { path: 'root', details, cause: error },
    );
  if (driverCode !== undefined && NOT_A_DATABASE.test(driverCode))
    return new TwinError(
      'STORE_FAILED',
      `${file}, where the root keeps ${what}, is not a SQLite database or is damaged (${driverCode}); restore it from a backup, or move it out of the root to start anew`,
      { path: 'root', details, cause: error },
    );
  return undefined;
}

/** Why a store of the root (its secrets, its idempotency keys) could not be opened. */
export function openRefusal(error: unknown, file: string, what: string): TwinError {
  const damaged = damagedFile(error, file, what);
  if (damaged !== undefined) return damaged;
  const code = (error as { code?: unknown }).code;
  const driverCode = typeof code === 'string' ? code : undefined;
  return new TwinError(
    'ROOT_READ_ONLY',
    `cannot open ${file}, where the root keeps ${what} (${driverCode ?? 'error'}); the world root must be a writable folder`,
    {
      path: 'root',
      details: { file, ...(driverCode === undefined ? {} : { driverCode }) },
      cause: error,
    },
  );
}
