// The PostgreSQL storage backend: the only part of twinworld that imports a PostgreSQL driver.
export { PostgresBackend, type PostgresBackendOptions } from './backend.js';
export { SCHEMA_VERSION } from './schema.js';
export { ALL_TENANTS } from './tenant.js';
export { twinLockKey } from './lock-key.js';
export type { StoreErrorCode } from './store-error.js';
