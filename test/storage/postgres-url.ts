// The throwaway server's superuser URL as the global setup provided it, typed for `inject`.
import { inject } from 'vitest';

declare module 'vitest' {
  export interface ProvidedContext {
    postgresUrl: string;
    /** The throwaway server's log file (lock waits over a second are in it). */
    postgresLog: string;
  }
}

export function postgresUrl(): string {
  return inject('postgresUrl');
}

/** The throwaway server's log file, for a test that fails on a stall to show. */
export function postgresLog(): string {
  return inject('postgresLog');
}
