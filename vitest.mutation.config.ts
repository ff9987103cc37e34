// The vitest configuration StrykerJS runs mutants under (see stryker.config.mjs): the suite's own
// settings without the global build step, since the tests picked for mutation import src/ directly
// and never run the compiled CLI. The throwaway PostgreSQL server stays: suites that run on every
// backend (the trigger engine's) need it.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'packs/**/*.test.ts'],
    globalSetup: ['test/storage/postgres.global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
