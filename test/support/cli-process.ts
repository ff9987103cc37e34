// Running the built `twinworld` binary as a child process, as a user would: one-shot commands
// with their output, and long-running ones (console, tail, listen) whose stdout is read as it
// comes and which are stopped with SIGINT.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { resolve } from 'node:path';

export const BIN = resolve('dist/src/cli/main.js');

export interface Done {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * How long a one-shot command may run before it is killed and the test fails naming it: far above
 * what any takes on a loaded machine, and below a test's own timeout, so a hang is reported as
 * the command that hung, with what it printed, rather than as the whole test running out of time.
 */
const COMMAND_MS = 40_000;

export function tw(args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<Done> {
  return runNode([BIN, ...args], env);
}

/** Any Node script (`argv[0]`, relative to the project) run to its end, with what it printed. */
export function runNode(argv: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<Done> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, argv, {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NO_COLOR: '1', ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      fail(hung(`${argv.slice(1).join(' ')} did not end within ${COMMAND_MS} ms`, stdout, stderr));
    }, COMMAND_MS);
    child.on('exit', (status) => {
      clearTimeout(timer);
      done({ status, stdout, stderr });
    });
  });
}

function hung(what: string, stdout: string, stderr: string): Error {
  return new Error(
    `${what}\n--- stdout\n${stdout.slice(-4000)}\n--- stderr\n${stderr.slice(-4000)}`,
  );
}

export interface Running {
  readonly child: ChildProcessWithoutNullStreams;
  /** Everything printed so far. */
  stdout(): string;
  stderr(): string;
  /** Resolves once stdout holds a line matching `pattern` (rejects after `ms`). */
  waitFor(pattern: RegExp, ms?: number): Promise<RegExpMatchArray>;
  /** Sends SIGINT and resolves with the exit status (rejects, after a SIGKILL, if none by `ms`). */
  interrupt(ms?: number): Promise<number | null>;
}

export function start(args: readonly string[], env: NodeJS.ProcessEnv = {}): Running {
  const child = spawn(process.execPath, [BIN, ...args], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, NO_COLOR: '1', ...env },
  });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (err += c));
  const exited = new Promise<number | null>((done) => child.on('exit', (s) => done(s)));
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    async waitFor(pattern, ms = 20_000) {
      const until = Date.now() + ms;
      for (;;) {
        const m = out.match(pattern);
        if (m !== null) return m;
        if (child.exitCode !== null)
          throw new Error(`exited ${child.exitCode} before ${pattern}: ${out}\n${err}`);
        if (Date.now() > until) throw new Error(`timed out waiting for ${pattern}: ${out}\n${err}`);
        await new Promise((r) => setTimeout(r, 25));
      }
    },
    async interrupt(ms = 15_000) {
      if (child.exitCode === null) child.kill('SIGINT');
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<never>((_, fail) => {
        timer = setTimeout(() => {
          child.kill('SIGKILL');
          fail(hung(`${args.join(' ')} did not stop within ${ms} ms of SIGINT`, out, err));
        }, ms);
      });
      try {
        return await Promise.race([exited, late]);
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
