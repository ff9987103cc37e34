// Where `--save PATH` puts a walk's golden log, checked before the walk runs: a name the fixture
// check refuses, a folder given as PATH, or a file where a folder must be would otherwise be found
// only after the whole walk ran, as a bare errno (EEXIST) at a path nobody typed.
import { statSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { TwinError } from '../errors.js';
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
  // is a file.
  for (let at = resolve(dir); ; at = dirname(at)) {
    const folder = isFolder(at);
    if (folder === false)
      throw refuse(
        `--save ${save}: ${at} is a file, so the log cannot be saved under it; pick a path in a folder`,
      );
    if (folder === true || dirname(at) === at) break;
  }
  return { dir, name };
}
