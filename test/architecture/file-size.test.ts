// No source file over 500 lines (docs/architecture.md): a class that gathers every feature
// becomes a thin façade over one operation per file. A few files are still being cut by others;
// they are allowed while they stay over the limit, and the list only shrinks — a file on it
// that falls to 500 lines or fewer fails here until it is taken off.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { expect, it } from 'vitest';

const MAX_LINES = 500;
const root = resolve(import.meta.dirname, '../..');

/** Still being cut (issue 25, item 5): remove each line once its file is under the limit. */
const STILL_CUTTING: string[] = [];

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

function lineCount(path: string): number {
  const text = readFileSync(path, 'utf8');
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

const sizes = new Map(
  ['src', 'packs']
    .flatMap((dir) => sources(join(root, dir)))
    .map((path) => [relative(root, path).split('\\').join('/'), lineCount(path)] as const),
);

it(`no source file under src/ or packs/ is over ${MAX_LINES} lines`, () => {
  const over = [...sizes]
    .filter(([path, lines]) => lines > MAX_LINES && !STILL_CUTTING.includes(path))
    .map(([path, lines]) => `${path}: ${lines} lines`);
  expect(over, 'cut these into one operation per file behind a thin façade').toEqual([]);
});

it('the files still being cut are still over the limit (take a file off the list once cut)', () => {
  const done = STILL_CUTTING.filter((path) => (sizes.get(path) ?? 0) <= MAX_LINES);
  expect(done, 'remove these from STILL_CUTTING in test/architecture/file-size.test.ts').toEqual(
    [],
  );
});
