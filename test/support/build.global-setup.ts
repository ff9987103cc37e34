// Builds dist/ once before the suite: child-process tests and the CLI tests run compiled code,
// exactly as a user's `npx twinworld` would.
import { spawnSync } from 'node:child_process';

export default function setup(): void {
  const result = spawnSync('npx', ['tsc', '-p', 'tsconfig.build.json'], {
    encoding: 'utf8',
    stdio: 'pipe',
  });
  if (result.status !== 0) {
    throw new Error(`build failed before tests:\n${result.stdout}\n${result.stderr}`);
  }
}
