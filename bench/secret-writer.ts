// A child process of the secret store benchmark: sets `count` refs of its own through one store
// kind, as fast as it can, while other processes do the same on the same root.
import { SqliteSecretStore } from '../src/storage/sqlite/sqlite-secret-store.js';
import { LockFileSecretStore } from './secret-lock-file.js';

const [root, kind, label, countText] = process.argv.slice(2);
const store = kind === 'sqlite' ? new SqliteSecretStore(root!) : new LockFileSecretStore(root!);
for (let i = 0; i < Number(countText); i++) store.set(`${label}/${i}`, `secret-${label}-${i}`);
if (store instanceof SqliteSecretStore) store.close();
