import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'packs/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Vitest's default is one worker fewer than the cores: on CI's 2 cores that is one file at a
    // time, and most files spend much of their time waiting on child processes, leases and the
    // clock, so the second core idled. Two at least; bigger machines keep the default.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    globalSetup: ['test/support/build.global-setup.ts', 'test/storage/postgres.global-setup.ts'],
  },
});
