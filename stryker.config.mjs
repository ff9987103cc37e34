// StrykerJS configuration for the protocol modules. Not part of CI: run it with
// `npm run mutation -- <module> [<module> …]` (see test/mutation/run.mjs), one module at a time,
// each with only the test files that exercise it, so a run fits a small shared machine.
// @ts-check
import { MODULES } from './test/mutation/modules.mjs';

const name = process.env.TWINWORLD_MUTATE ?? '';
const module = MODULES[name];
if (module === undefined) {
  throw new Error(`TWINWORLD_MUTATE must name a module: ${Object.keys(MODULES).join(', ')}`);
}

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
const config = {
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.mutation.config.ts', related: false },
  plugins: ['@stryker-mutator/vitest-runner'],
  mutate: module.mutate,
  // TWINWORLD_MUTATE_TESTS (comma-separated) replaces the module's tests, e.g. to measure a score
  // before new tests were written.
  testFiles: process.env.TWINWORLD_MUTATE_TESTS?.split(',') ?? module.tests,
  coverageAnalysis: 'perTest',
  // TypeScript 7 has no JavaScript API for Stryker's tsconfig rewriting, and nothing here needs it:
  // vitest transpiles the sandbox's sources itself. A name that matches no file turns the step off.
  tsconfigFile: 'no-tsconfig-for-stryker.json',
  ignoreStatic: true,
  concurrency: 1,
  timeoutMS: 20_000,
  reporters: ['clear-text', 'progress', 'json', 'html'],
  jsonReporter: { fileName: `reports/mutation/${name}.json` },
  htmlReporter: { fileName: `reports/mutation/${name}.html` },
  // `--incremental` re-tests only the mutants whose code or covering tests changed since this file.
  incrementalFile: `reports/mutation/${name}.incremental.json`,
  tempDirName: `.stryker-tmp/${name}`,
  cleanTempDir: true,
  thresholds: { high: 90, low: 80, break: null },
};

export default config;
