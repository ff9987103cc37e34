// Where `--save PATH` puts a walk's golden log, checked before the walk runs: a name the fixture
// check refuses, a folder given as PATH, or a file where a folder must be would otherwise be found
// only after the whole walk ran, as a bare errno (EEXIST) at a path nobody typed.
import { closeSync, openSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { TwinError } from '../errors.js';
import { fileSystemReason } from '../log/file-system.js';
import { checkFixtureName } from '../walk/golden.js';

export interface SaveTarget {
  readonly dir: string;
  readonly name: string;
}

function refuse(message: string): TwinError {
  return new TwinError('INVALID_ARGUMENT', message, { path: 'save' });
}

function isFolder(path: string): boolean | undefined {
  try {
    return statSync(path).isDirectory();
  } catch {
    return undefined;
  }
}

/** The folder and fixture name `--save` names; refused (path "save") when they cannot be written. */
export function checkSaveTarget(save: string): SaveTarget {
  const example = `${save.replace(/[/\\]+$/, '')}/walk-mine`;
  if (/[/\\]$/.test(save) || isFolder(save) === true)
    throw refuse(
      `--save ${save} is a folder; --save names the files to write, without extension: give e.g. --save ${example} (writes walk-mine.jsonl and walk-mine.json there)`,
    );
  const name = basename(save).replace(/\.jsonl?$/, '');
  try {
    checkFixtureName(name);
  } catch (error) {
    throw refuse(`--save ${save}: ${(error as Error).message}`);
  }
  const dir = dirname(save);
  // The folder is made when the log is saved; what must hold now is that nothing on its way
  // is a file, and that the nearest folder that exists takes a new file.
  let at = resolve(dir);
  for (; ; at = dirname(at)) {
    const folder = isFolder(at);
    if (folder === false)
      throw refuse(
        `--save ${save}: ${at} is a file, so the log cannot be saved under it; pick a path in a folder`,
      );
    if (folder === true || dirname(at) === at) break;
  }
  for (const file of [`${name}.jsonl`, `${name}.json`])
    if (isFolder(join(dir, file)) === true)
      throw refuse(
        `--save ${save}: ${join(dir, file)} is a folder, so the log cannot be saved as it; pick another name`,
      );
  const problem = cannotWriteIn(at);
  if (problem !== undefined)
    throw refuse(
      `--save ${save}: cannot write in ${at} (${problem}); pick a path in a folder this user can write, e.g. --save ./fixtures/${name}`,
    );
  return { dir, name };
}

/**
 * Why a new file cannot be made in `folder`, found by making and removing one: permission bits
 * say nothing of a read-only mount or of /proc, which refuses new files with ENOENT.
 */
function cannotWriteIn(folder: string): string | undefined {
  const probe = join(folder, `.twinworld-save-check-${process.pid}`);
  try {
    closeSync(openSync(probe, 'wx'));
  } catch (error) {
    return fileSystemReason(error, 'writing');
  }
  rmSync(probe, { force: true });
  return undefined;
}
