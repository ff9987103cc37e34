// Starts one throwaway PostgreSQL server for the whole test run and hands its superuser URL to every
// test file (`postgresUrl()` in ./postgres-url.ts); the server and its folder go when the run ends.
import type { TestProject } from 'vitest/node';
import { startPostgresServer } from '../support/postgres-server.js';
import type {} from './postgres-url.js';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = await startPostgresServer();
  project.provide('postgresUrl', server.url);
  project.provide('postgresLog', server.log);
  return () => server.stop();
}
