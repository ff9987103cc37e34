// twinworld/sqlite: the embedded backend, for worlds opened with an explicit backend.
export { SqliteBackend, type SqliteOptions } from './sqlite-backend.js';
