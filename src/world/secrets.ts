// Endpoint secrets live here, never in the log: records keep only a reference. Several secrets
// may be active at once while one rotates (old ones expire after a grace period).
import { chmodSync, existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { TwinError } from '../errors.js';

export interface StoredSecret {
  readonly secret: string;
  /** Epoch ms after which the secret no longer signs; absent = current. */
  readonly expiresAt?: number;
}

export interface SecretStore {
  /** Replaces every secret of `ref` with one. */
  set(ref: string, secret: string): void;
  /** Adds `secret` as the current one and keeps the old ones for `graceMs` from `now`. */
  rotate(ref: string, secret: string, now: number, graceMs: number): void;
  /** Secrets active at `now`, newest first; empty if the ref is unknown. */
  resolve(ref: string, now: number): string[];
  delete(ref: string): void;
}

function checkRef(ref: unknown): string {
  if (typeof ref !== 'string' || ref === '') throw new TwinError('INVALID_ARGUMENT', 'a secret reference must be a non-empty string (e.g. the endpoint id)', { path: 'ref' });
  return ref;
}

function checkSecret(secret: unknown): string {
  if (typeof secret !== 'string' || secret === '') throw new TwinError('INVALID_ARGUMENT', 'a secret must be a non-empty string', { path: 'secret' });
  return secret;
}

export class MemorySecretStore implements SecretStore {
  protected secrets = new Map<string, StoredSecret[]>();

  set(ref: string, secret: string): void {
    this.refresh();
    this.secrets.set(checkRef(ref), [{ secret: checkSecret(secret) }]);
    this.persist();
  }

  rotate(ref: string, secret: string, now: number, graceMs: number): void {
    checkRef(ref);
    checkSecret(secret);
    this.refresh();
    if (!Number.isFinite(graceMs) || graceMs < 0) throw new TwinError('INVALID_ARGUMENT', 'rotate: graceMs must be a non-negative number of milliseconds', { path: 'graceMs' });
    const old = (this.secrets.get(ref) ?? [])
      .filter((s) => s.expiresAt === undefined || s.expiresAt > now)
      .map((s) => ({ secret: s.secret, expiresAt: Math.min(s.expiresAt ?? Infinity, now + graceMs) }));
    this.secrets.set(ref, [{ secret }, ...old]);
    this.persist();
  }

  resolve(ref: string, now: number): string[] {
    return (this.secrets.get(ref) ?? []).filter((s) => s.expiresAt === undefined || s.expiresAt > now).map((s) => s.secret);
  }

  delete(ref: string): void {
    this.refresh();
    this.secrets.delete(ref);
    this.persist();
  }

  protected persist(): void {}
  protected refresh(): void {}
}

/** `<root>/secrets.json`, mode 0600, written atomically; shared by every process on the root. */
export class FileSecretStore extends MemorySecretStore {
  private readonly file: string;

  constructor(root: string) {
    super();
    this.file = join(root, 'secrets.json');
    this.load();
  }

  protected override refresh(): void {
    this.load();
  }

  private load(): void {
    if (!existsSync(this.file)) return;
    const data = JSON.parse(readFileSync(this.file, 'utf8')) as Record<string, StoredSecret[]>;
    this.secrets = new Map(Object.entries(data));
  }

  override resolve(ref: string, now: number): string[] {
    // Another process (a CLI command) may have added secrets since we loaded.
    if (!this.secrets.has(ref)) this.load();
    return super.resolve(ref, now);
  }

  protected override persist(): void {
    const tmp = `${this.file}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(Object.fromEntries(this.secrets)), { mode: 0o600 });
    chmodSync(tmp, 0o600);
    renameSync(tmp, this.file);
  }
}
