// A routine runner whose routines execute in a child process (node:child_process fork), one child
// per run, loaded from a module file: a routine that crashes its process, hangs past the timeout
// or leaks does so in the child. A child that dies or is killed before answering is a run that did
// not finish — the record is failed and a retried delivery or recovery runs it again. The child
// holds a run lock while the routine executes (docs/routine-runners.md).
import { fork, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkOptionKeys, TwinError } from '../../errors.js';
import type { JsonValue } from '../../log/json-value.js';
import { unknownRoutine } from '../routine-store.js';
import { routineRunRecorder } from '../run-recorder.js';
import type { RoutineRunner, RoutineRunRequest, RunRecorder } from '../runner.js';
import type { FromChild, ToChild } from './child-protocol.js';

export interface ChildProcessRunnerOptions {
  /** An ES module (a .js/.mjs file) exporting `routines` and, optionally, `lock`. */
  readonly module: string;
  /** How long one run may take before its child is killed; 5 minutes unless given. */
  readonly timeoutMs?: number;
  /** A folder for the file run lock the child holds; omit for no lock (or export `lock`). */
  readonly lockDir?: string;
}

const DEFAULT_TIMEOUT_MS = 5 * 60_000;

/** The compiled child; run from TypeScript sources (the test suite), the one under dist/. */
function childEntry(): string {
  const here = fileURLToPath(new URL('./routine-child.js', import.meta.url));
  if (existsSync(here)) return here;
  return here.replace(/([\\/])src([\\/]triggers[\\/])/, '$1dist$1src$2');
}

function checkOptions(options: ChildProcessRunnerOptions): void {
  if (typeof options?.module !== 'string' || options.module === '')
    throw new TwinError(
      'INVALID_ARGUMENT',
      'new ChildProcessRunner({ module }): name the routine module file',
      { path: 'module' },
    );
  // {timout: 1000} was dropped: runs had five minutes, not the second meant.
  checkOptionKeys('new ChildProcessRunner(options)', options, ['module', 'timeoutMs', 'lockDir']);
  const t = options.timeoutMs;
  if (t !== undefined && (!Number.isSafeInteger(t) || t < 1))
    throw new TwinError(
      'INVALID_ARGUMENT',
      'timeoutMs must be a positive integer of milliseconds',
      {
        path: 'timeoutMs',
      },
    );
  if (
    options.lockDir !== undefined &&
    (typeof options.lockDir !== 'string' || options.lockDir === '')
  )
    throw new TwinError('INVALID_ARGUMENT', 'lockDir must be a folder path', { path: 'lockDir' });
}

export class ChildProcessRunner implements RoutineRunner {
  readonly recorder: RunRecorder = routineRunRecorder;
  private readonly module: string;
  private listing: Promise<readonly string[]> | undefined;

  constructor(private readonly options: ChildProcessRunnerOptions) {
    checkOptions(options);
    this.module = resolve(options.module);
  }

  /** The routine ids the module exports, read once from a child (an unloadable module refuses). */
  ids(): Promise<readonly string[]> {
    if (this.listing === undefined) {
      const listing = this.ask({ kind: 'list' }).then((reply) => {
        if (reply.kind === 'ids') return reply.ids;
        throw this.unloadable(reply);
      });
      // A failed listing (a module being fixed, a child killed) is asked again next time.
      listing.catch(() => (this.listing = undefined));
      this.listing = listing;
    }
    return this.listing;
  }

  async has(routineId: string): Promise<boolean> {
    return (await this.ids()).includes(routineId);
  }

  async run(request: RoutineRunRequest): Promise<JsonValue> {
    const { routineId } = request;
    if (!(await this.ids()).includes(routineId)) throw this.unknown(routineId);
    const reply = await this.ask(
      {
        kind: 'run',
        input: request.input,
        context: {
          routineId,
          runKey: request.runKey,
          attempt: request.attempt,
          recordId: request.recordId,
          envelope: request.envelope,
        },
        lockDir: this.options.lockDir ?? null,
      },
      request.signal,
    );
    switch (reply.kind) {
      case 'done':
        return reply.result;
      case 'threw': {
        // The routine's own error name or code, as the engine records it for a run in process.
        const error = new Error(
          `routine "${routineId}" threw in its child process: ${reply.message}`,
        );
        error.name = reply.name;
        throw error;
      }
      case 'unknown':
        throw this.unknown(routineId);
      case 'locked':
        throw new TwinError(
          'ROUTINE_LOCKED',
          `routine "${routineId}" for record ${request.recordId} is still executing in another process (it holds the run lock); this attempt is failed and runs again later`,
          { details: { recordId: request.recordId, routineId } },
        );
      default:
        throw this.unloadable(reply);
    }
  }

  private unknown(routineId: string): TwinError {
    return unknownRoutine(
      routineId,
      `export it from ${this.module} as routines["${routineId}"] (an async function (input, context) => result)`,
    );
  }

  private unloadable(reply: FromChild): TwinError {
    const why = reply.kind === 'unloadable' ? reply.message : `it answered ${reply.kind}`;
    return new TwinError(
      'INVALID_CONFIG',
      `the routine module ${this.module} could not be loaded in a child process: ${why}`,
      { path: 'module' },
    );
  }

  /** Forks a child, sends one request, answers its one reply; a child gone without one is refused. */
  private ask(request: ToChild, signal?: AbortSignal): Promise<FromChild> {
    const timeoutMs = this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const what =
      request.kind === 'run' ? `routine "${request.context.routineId}"` : 'the routine listing';
    return new Promise<FromChild>((answer, refuse) => {
      let child: ChildProcess;
      let reply: FromChild | undefined;
      let failure: TwinError | Error | undefined;
      const kill = (why: TwinError | Error): void => {
        if (reply !== undefined) return;
        failure ??= why;
        child.kill('SIGKILL');
      };
      // Wall-time pacing of a child process, which runs on wall time whatever the world's clock.
      const timer = setTimeout(
        () =>
          kill(
            new TwinError(
              'ROUTINE_TIMEOUT',
              `${what} ran longer than ${timeoutMs} ms in its child process, which was killed; the attempt is failed and runs again later`,
              { details: { timeoutMs } },
            ),
          ),
        timeoutMs,
      );
      const onAbort = (): void => {
        const error = new Error(`${what} was stopped: the run lost its claim`);
        error.name = 'ABORTED';
        kill(error);
      };
      try {
        child = fork(childEntry(), [this.module], {
          stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
          execArgv: [],
          serialization: 'json',
        });
      } catch (error) {
        clearTimeout(timer);
        refuse(error);
        return;
      }
      if (signal?.aborted === true) onAbort();
      else signal?.addEventListener('abort', onAbort, { once: true });
      child.once('message', (message: FromChild) => (reply ??= message));
      child.once('error', (error) => (failure ??= error));
      // Settled on exit only: by then the child is reaped, so a lock it held is seen as stale.
      child.once('exit', (code, exitSignal) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        if (failure === undefined && reply !== undefined) return answer(reply);
        refuse(
          failure ??
            new TwinError(
              'ROUTINE_CRASHED',
              `${what} did not answer: its child process exited (${exitSignal ?? `code ${code}`}) first; the attempt is failed and runs again later`,
              { details: { exit: exitSignal ?? code } },
            ),
        );
      });
      child.send(request);
    });
  }
}
