// Runs the whole `twinworld` CLI in this process with its own streams, as a user would type it,
// and answers the exit code with what it printed.
import { PassThrough } from 'node:stream';
import { runCli } from '../../src/cli/run.js';

export interface CliRun {
  readonly status: number;
  readonly stdout: string;
  readonly stderr: string;
  /** stdout parsed as JSON (for --json runs). */
  json<T = Record<string, unknown>>(): T;
}

export async function cli(args: readonly string[]): Promise<CliRun> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const stdin = new PassThrough();
  stdin.end('');
  let out = '';
  let err = '';
  stdout.on('data', (c: Buffer) => (out += c.toString()));
  stderr.on('data', (c: Buffer) => (err += c.toString()));
  const status = await runCli(args, {
    stdin,
    stdout,
    stderr,
    isTTY: { stdin: false, stdout: false, stderr: false },
  });
  return { status, stdout: out, stderr: err, json: <T>() => JSON.parse(out) as T };
}
