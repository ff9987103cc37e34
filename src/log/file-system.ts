// File-system help shared by every layer that writes files (roots, golden logs, exports): folders
// made without Node's recursive mkdir, and what the OS said, in words a refusal can carry.
import { mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';

const REASONS: Readonly<Record<string, string>> = {
  ENOTDIR: 'a part of the path is a file, not a folder',
  EISDIR: 'it is a folder, not a file',
  EPERM: 'the OS does not permit it',
  EROFS: 'the file system is read-only',
  ENOSPC: 'the disk is full',
  EDQUOT: "the user's disk quota is used up",
  EFBIG: 'the file grew past the size this process may write',
  ENAMETOOLONG: 'the path is too long',
  ELOOP: 'the path loops through symbolic links',
  EEXIST: 'something else already has that name',
  EMFILE: 'this process has too many files open',
  EIO: 'the device reported an I/O error',
};

const READING: Readonly<Record<string, string>> = {
  ENOENT: 'there is no such file',
  EACCES: 'this user may not read it',
};

const WRITING: Readonly<Record<string, string>> = {
  // Also what /proc and /sys answer for a file they will not take.
  ENOENT: 'the folder does not exist or takes no new files',
  EACCES: 'this user may not write there',
};

/** Whether `code` is one of the file system's errno codes these words cover (a socket's is not). */
export function isFileSystemCode(code: string): boolean {
  return Object.hasOwn(REASONS, code) || Object.hasOwn(READING, code);
}

/** What an errno code means, said for a person: "the file system is read-only (EROFS)". */
export function fileSystemReason(error: unknown, doing: 'reading' | 'writing'): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return error instanceof Error ? error.message : String(error);
  const words = (doing === 'reading' ? READING : WRITING)[code] ?? REASONS[code];
  return `${words ?? 'the OS refused it'} (${code})`;
}

/**
 * `mkdir -p`. Node's own (`mkdirSync(path, { recursive: true })`, sync and async) spins forever
 * at full CPU when a folder that exists cannot hold new ones but answers ENOENT, as under /proc:
 * it takes ENOENT for "parent missing", makes the parent (EEXIST) and tries again. Here each
 * missing folder is made once, from the nearest one that exists; the first failure is thrown.
 */
export function makeFolders(path: string): void {
  const missing: string[] = [];
  for (let at = path; ; at = dirname(at)) {
    try {
      statSync(at);
      break;
    } catch (error) {
      if ((error as { code?: unknown }).code !== 'ENOENT' || dirname(at) === at) throw error;
      missing.push(at);
    }
  }
  for (const folder of missing.reverse()) {
    try {
      mkdirSync(folder);
    } catch (error) {
      // Another process made it meanwhile: what was asked for is there.
      if ((error as { code?: unknown }).code !== 'EEXIST' || !statSync(folder).isDirectory())
        throw error;
    }
  }
}
