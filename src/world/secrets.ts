// Where a world's endpoint secrets are kept: the port and its backends live in storage/ (the
// SQLite file is a driver's business); the world picks one — the root's file, memory for
// ':memory:' worlds, or a store of the caller's own — and may put a vault resolver in front.
export {
  MemorySecretStore,
  ResolvingSecretStore,
  type SecretResolver,
  type SecretStore,
} from '../storage/secret-store.js';
export { SqliteSecretStore as FileSecretStore } from '../storage/sqlite/sqlite-secret-store.js';
