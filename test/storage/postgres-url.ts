// The throwaway server's superuser URL as the global setup provided it, typed for `inject`.
import { inject } from 'vitest';

declare module 'vitest' {
  export interface ProvidedContext {
    postgresUrl: string;
  }
}

export function postgresUrl(): string {
  return inject('postgresUrl');
}
