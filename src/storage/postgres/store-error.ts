// Driver failures turned into typed refusals: what is wrong (cannot connect, authentication, missing
// permission, schema too new, another tenant's row, a twin locked too long), where (host and port,
// never the password) and how to fix it. SQLSTATEs and socket codes stay in `details`.
import { TwinError, type TwinErrorCode } from '../../errors.js';

/** Codes of the PostgreSQL backend's refusals. */
export type StoreErrorCode = Extract<
  TwinErrorCode,
  | `STORE_${string}`
  | 'TENANT_MISMATCH'
  | 'INVALID_CONFIG'
  | 'INVALID_ARGUMENT'
  | 'INVALID_WRITE'
  | 'DISK_FULL'
>;

export function storeError(
  code: StoreErrorCode,
  message: string,
  options: { path?: string; details?: Record<string, unknown>; cause?: unknown } = {},
): TwinError {
  return new TwinError(code, message, options);
}

/** Where the backend connects, for messages: host and port only. */
export interface Endpoint {
  readonly host: string;
  readonly port: number;
  readonly database: string;
  readonly user: string;
}

interface DriverError {
  readonly code?: string;
  readonly message?: string;
  readonly errors?: readonly unknown[];
}

const SOCKET_REASONS: Record<string, string> = {
  ECONNREFUSED: 'connection refused: is PostgreSQL running and listening there?',
  ENOTFOUND: 'no such host: check the host name in the URL',
  EAI_AGAIN: 'the host name could not be resolved right now: check DNS or the host name',
  ETIMEDOUT: 'the connection timed out: check the host, port and firewalls',
  EHOSTUNREACH: 'the host is unreachable: check the network and the host name',
  ENETUNREACH: 'the network is unreachable: check the network and the host name',
  ECONNRESET:
    'the server closed the connection: check that this port is PostgreSQL and that it accepts this client',
};

function driverError(error: unknown): DriverError {
  if (error === null || typeof error !== 'object') return { message: String(error) };
  const e = error as DriverError;
  // Node reports a refused connection to a name with several addresses as an AggregateError.
  if (e.code === undefined && Array.isArray(e.errors) && e.errors.length > 0)
    return driverError(e.errors[0]);
  return e;
}

/** The driver's own words, without anything that could carry the password. */
function reasonOf(e: DriverError): string {
  return (e.message ?? 'unknown error').replace(/postgres(ql)?:\/\/[^\s]*/gi, '<url>');
}

const SQLSTATE = /^[0-9A-Z]{5}$/;

/** Maps a failure met while connecting or migrating. */
export function connectError(error: unknown, at: Endpoint): TwinError {
  if (error instanceof TwinError) return error;
  const e = driverError(error);
  const where = `${at.host}:${at.port}`;
  const reason = reasonOf(e);
  const details = {
    host: at.host,
    port: at.port,
    database: at.database,
    user: at.user,
    reason,
    ...(e.code === undefined ? {} : { driverCode: e.code }),
  };
  if (e.code !== undefined && SOCKET_REASONS[e.code] !== undefined) {
    return storeError(
      'STORE_UNREACHABLE',
      `cannot connect to PostgreSQL at ${where}: ${SOCKET_REASONS[e.code]} (${e.code}: ${reason})`,
      { details, cause: error },
    );
  }
  if (
    e.code === '28P01' ||
    e.code === '28000' ||
    (/SASL|password/i.test(reason) && (e.code === undefined || !SQLSTATE.test(e.code)))
  ) {
    return storeError(
      'STORE_AUTH_FAILED',
      `PostgreSQL at ${where} refused user "${at.user}": ${reason}; check the user and password in the store URL`,
      { details, cause: error },
    );
  }
  if (e.code === '3D000') {
    return storeError(
      'INVALID_CONFIG',
      `PostgreSQL at ${where} has no database "${at.database}": create it (createdb ${at.database}) or fix the database in the store URL`,
      { path: 'store', details, cause: error },
    );
  }
  if (e.code === '42501') {
    return storeError(
      'STORE_PERMISSION_DENIED',
      `user "${at.user}" lacks a permission on PostgreSQL at ${where}: ${reason}; an application login must be a member of twinworld_app ` +
        `(GRANT twinworld_app TO "${at.user}"), see src/storage/postgres/README.md for the roles twinworld needs`,
      { details, cause: error },
    );
  }
  // disk_full, out_of_memory's sibling: the server's disk, not the request, is what to fix.
  if (e.code === '53100') {
    return storeError(
      'DISK_FULL',
      `PostgreSQL at ${where} has no disk space left: ${reason}; free space on the database server (nothing of this write was kept)`,
      { details, cause: error },
    );
  }
  if (e.code === '53300' || e.code === '57P03') {
    return storeError(
      'STORE_UNREACHABLE',
      `PostgreSQL at ${where} is not accepting connections now: ${reason}`,
      { details, cause: error },
    );
  }
  if (e.code === undefined || !SQLSTATE.test(e.code)) {
    // Socket-level failures without a code: a timeout, a connection cut during startup.
    return storeError('STORE_UNREACHABLE', `cannot connect to PostgreSQL at ${where}: ${reason}`, {
      details,
      cause: error,
    });
  }
  return storeError('STORE_FAILED', `PostgreSQL at ${where} failed: ${reason}`, {
    details,
    cause: error,
  });
}

/** Maps a failure met inside a section or a read; `tenant` is the section's tenant, if any. */
export function operationError(
  error: unknown,
  at: Endpoint,
  twin: string,
  tenant: string | undefined,
): TwinError {
  if (error instanceof TwinError) return error;
  const e = driverError(error);
  const reason = reasonOf(e);
  const details = {
    host: at.host,
    port: at.port,
    twin,
    reason,
    ...(e.code === undefined ? {} : { driverCode: e.code }),
  };
  if (e.code === '42501' && tenant !== undefined) {
    return storeError(
      'TENANT_MISMATCH',
      `twin "${twin}": a section scoped to tenant "${tenant}" tried to write a row of another tenant (or move a row to another tenant); nothing was written`,
      { details, cause: error },
    );
  }
  if (e.code === '55P03') {
    return storeError(
      'STORE_BUSY',
      `twin "${twin}": another section held its lock longer than the lock timeout; retry, or raise lockTimeoutMs`,
      { details, cause: error },
    );
  }
  if (e.code === '42501') return connectError(error, at);
  if (
    e.code === undefined ||
    !SQLSTATE.test(e.code) ||
    e.code.startsWith('08') ||
    e.code.startsWith('57P')
  )
    return connectError(error, at);
  return storeError(
    'STORE_FAILED',
    `twin "${twin}": PostgreSQL at ${at.host}:${at.port} failed: ${reason}`,
    { details, cause: error },
  );
}

/**
 * Whether PostgreSQL aborted the statement to break a deadlock (40P01). Sections read nothing before
 * the twin's lock, so none should arise; if one does (a host's own statements against our tables),
 * the aborted section wrote nothing and may simply run again.
 */
export function aborted(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === '40P01';
}
