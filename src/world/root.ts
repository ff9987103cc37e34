// A world root on disk: checked before anything is opened in it, so that a mistyped, read-only
// or wrong kind of path is a typed refusal that says what to do — never an errno (EEXIST,
// ENOTDIR) or a driver code (SQLITE_CANTOPEN, SQLITE_READONLY_DIRECTORY) — and so that opening a
// world only to read it never creates its folder.
import { accessSync, constants, lstatSync, readlinkSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { TwinError } from '../errors.js';
import { fileSystemReason, makeFolders } from '../log/file-system.js';

function errno(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * How the caller named the root, so that a refusal says what to change: the CLI's `--store URL`
 * or TWINWORLD_STORE is not fixed by passing a --root.
 */
export interface RootNaming {
  /** What names the root: "--root", "--store", "TWINWORLD_STORE". */
  readonly option: string;
  /** What the user gave, when it is not the folder itself: "--store sqlite:/proc/x". */
  readonly given?: string;
  /** How to name a root that can be made: "pass a --root on a disk, e.g. ./.twinworld". */
  readonly onDisk: string;
}

const BY_ROOT: RootNaming = {
  option: '--root',
  onDisk: 'pass a --root on a disk, e.g. ./.twinworld',
};

function named(root: string, naming: RootNaming): string {
  return naming.given === undefined ? root : `${root} (${naming.given})`;
}

function notAFolder(root: string, what: string, naming: RootNaming = BY_ROOT): TwinError {
  return new TwinError(
    'ROOT_NOT_A_FOLDER',
    `the world root ${named(root, naming)} cannot be used: ${what} is a file, not a folder; pass a folder with ${naming.option} (it is created if missing)`,
    { path: 'root' },
  );
}

function readOnly(root: string, cause: string, cause2?: unknown): TwinError {
  return new TwinError(
    'ROOT_READ_ONLY',
    `cannot write in the world root ${root} (${cause}); SQLite keeps a write-ahead log beside each twin's file, so the folder must be writable even to read it — make it writable, or copy the root somewhere writable`,
    { path: 'root', details: { cause }, ...(cause2 === undefined ? {} : { cause: cause2 }) },
  );
}

function writable(path: string): string | undefined {
  try {
    accessSync(path, constants.W_OK);
    return undefined;
  } catch (error) {
    return errno(error) ?? 'EACCES';
  }
}

/** Where `path` links to, when it is a symbolic link whose target does not exist. */
function danglingLink(path: string): string | undefined {
  try {
    return lstatSync(path).isSymbolicLink() ? readlinkSync(path) : undefined;
  } catch {
    return undefined;
  }
}

function isFile(path: string): boolean {
  try {
    return !statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** The nearest existing folder at or above `path` (for messages about why it cannot be made). */
function nearestExisting(path: string): { path: string; isDirectory: boolean } | undefined {
  for (let at = path; ; at = dirname(at)) {
    try {
      return { path: at, isDirectory: statSync(at).isDirectory() };
    } catch {
      if (dirname(at) === at) return undefined;
    }
  }
}

/**
 * Makes sure `root` is a folder this process can use. `create: false` (commands that only read)
 * refuses a missing root with ROOT_NOT_FOUND instead of creating it; `create: true` creates it
 * and checks that it is writable.
 */
export function prepareRoot(root: string, create: boolean, naming: RootNaming = BY_ROOT): void {
  let exists = false;
  try {
    const stat = statSync(root);
    if (!stat.isDirectory()) throw notAFolder(root, 'it', naming);
    exists = true;
  } catch (error) {
    if (error instanceof TwinError) throw error;
    const code = errno(error);
    if (code === 'ENOTDIR') {
      const near = nearestExisting(root);
      throw notAFolder(root, near === undefined ? 'a part of its path' : near.path, naming);
    }
    if (code !== 'ENOENT') throw readOnly(root, code ?? 'cannot access', error);
    const target = danglingLink(root);
    if (target !== undefined)
      throw new TwinError(
        'ROOT_NOT_FOUND',
        `the world root ${named(root, naming)} is a symbolic link to ${target}, which does not exist: the link points at nothing; create ${target}, or point ${naming.option} at a folder`,
        { path: 'root', details: { link: root, target } },
      );
  }
  if (!exists) {
    if (!create) {
      throw new TwinError(
        'ROOT_NOT_FOUND',
        `there is no world at ${named(root, naming)}: the folder does not exist; check ${naming.option} (commands that write create it)`,
        { path: 'root' },
      );
    }
    try {
      makeFolders(root);
    } catch (error) {
      const near = nearestExisting(root);
      if (near !== undefined && !near.isDirectory) throw notAFolder(root, near.path, naming);
      const denied = near === undefined ? undefined : writable(near.path);
      if (denied !== undefined || near === undefined)
        throw readOnly(root, denied ?? errno(error) ?? 'cannot create it', error);
      // The folder above is writable and still refused it: a file system that holds no folders
      // of ours (/proc, /sys), which "make it writable" would not fix.
      throw new TwinError(
        'ROOT_READ_ONLY',
        `cannot create the world root ${named(root, naming)} in ${near.path}: ${fileSystemReason(error, 'writing')}; ${naming.onDisk}`,
        { path: 'root', details: { cause: errno(error) ?? 'cannot create it' }, cause: error },
      );
    }
  }
  const twins = join(root, 'twins');
  // Said of the root as a whole, "a part of its path is a file" pointed at the folder given.
  if (isFile(twins))
    throw new TwinError(
      'ROOT_NOT_A_FOLDER',
      `the world root ${named(root, naming)} cannot be used: ${twins} is a file, but the root keeps its twins' logs in that folder; move the file out of the root, or pass another ${naming.option}`,
      { path: 'root' },
    );
  if (create) {
    const problem = writable(root);
    if (problem !== undefined) throw readOnly(root, problem);
    try {
      if (statSync(twins).isDirectory() && writable(twins) !== undefined)
        throw readOnly(twins, writable(twins)!);
    } catch (error) {
      if (error instanceof TwinError) throw error;
    }
  }
}

const STORAGE_CODES =
  /^(SQLITE_CANTOPEN|SQLITE_READONLY|SQLITE_PERM|SQLITE_AUTH|EACCES|EROFS|EPERM|ENOTDIR)/;

/**
 * What a full disk looks like from SQLite and the file system: SQLITE_FULL for the database and its
 * journal, SQLITE_IOERR_SHMSIZE when the WAL index cannot grow, ENOSPC/EDQUOT from a plain write.
 */
const FULL_CODES = /^(SQLITE_FULL|SQLITE_IOERR_SHMSIZE|ENOSPC|EDQUOT)$/;

function diskFull(root: string, code: string, cause?: unknown): TwinError {
  return new TwinError(
    'DISK_FULL',
    `the disk holding the world at ${root} is full (${code}); free space there, or move the world with --root — the write that hit it was not kept`,
    { path: 'root', details: { code }, ...(cause === undefined ? {} : { cause }) },
  );
}

/**
 * A typed refusal for what the file system or the driver said about the root, or undefined when
 * the error is about something else. Used where storage is opened and at the CLI's edge.
 */
export function storageRefusal(error: unknown, root: string): TwinError | undefined {
  if (error instanceof TwinError) return undefined;
  const code = errno(error);
  if (code !== undefined && FULL_CODES.test(code)) return diskFull(root, code, error);
  if (code !== undefined && code.startsWith('SQLITE_BUSY'))
    return new TwinError(
      'STORE_BUSY',
      `another process held a twin's database in the world at ${root} locked for longer than the busy timeout (${code}); nothing was written — retry, or find the process holding it (a long export, a stopped process)`,
      { path: 'root', details: { code }, cause: error },
    );
  if (code === undefined || !STORAGE_CODES.test(code)) return undefined;
  if (code === 'ENOTDIR') return notAFolder(root, 'a part of its path');
  return readOnly(root, code, error);
}
