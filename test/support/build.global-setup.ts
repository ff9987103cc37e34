// Builds dist/ once before the suite: child-process tests and the CLI tests run compiled code,
// exactly as a user's `npx twinworld` would. The build goes to a folder of its own beside dist/
// (the same depth, so source maps stay right) and only files that changed are moved into dist/,
// each by an atomic rename: a second run started beside this one (two suites at once on one
// checkout) never has its child processes load a half-written module.
import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
} from 'node:fs';
import { dirname, join, relative } from 'node:path';

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : [join(dir, e.name)],
  );
}

function same(a: string, b: string): boolean {
  return existsSync(b) && readFileSync(a).equals(readFileSync(b));
}

export default function setup(): void {
  const staging = `dist-build-${process.pid}`;
  try {
    const result = spawnSync('npx', ['tsc', '-p', 'tsconfig.build.json', '--outDir', staging], {
      encoding: 'utf8',
      stdio: 'pipe',
    });
    if (result.status !== 0) {
      throw new Error(`build failed before tests:\n${result.stdout}\n${result.stderr}`);
    }
    for (const built of files(staging)) {
      const target = join('dist', relative(staging, built));
      if (same(built, target)) continue;
      mkdirSync(dirname(target), { recursive: true });
      const temp = `${target}.${process.pid}.tmp`;
      copyFileSync(built, temp);
      renameSync(temp, target);
    }
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}
