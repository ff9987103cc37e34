// Waiting for the operator's stop: the long-running commands (serve, work) share it, and a long
// loop (`trigger --count`) notes it between steps so it can say what it did before exiting.

/** Resolves on the first SIGINT or SIGTERM; the listeners are removed either way. */
export function untilSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const on = (signal: NodeJS.Signals): void => {
      process.off('SIGINT', on);
      process.off('SIGTERM', on);
      resolve(signal);
    };
    process.on('SIGINT', on);
    process.on('SIGTERM', on);
  });
}

/** The exit code a shell gives a process stopped by `signal`: 128 + its number (SIGINT: 130). */
export function signalExitCode(signal: NodeJS.Signals): number {
  return 128 + (signal === 'SIGTERM' ? 15 : 2);
}

/**
 * Notes the first SIGINT or SIGTERM instead of dying on it, until `stop()`. Only the first: a
 * second Ctrl-C finds no listener and stops the process the default way, as an impatient user
 * expects.
 */
export function noteSignal(): { readonly received: NodeJS.Signals | undefined; stop(): void } {
  let received: NodeJS.Signals | undefined;
  const on = (signal: NodeJS.Signals): void => {
    received = signal;
    stop();
  };
  const stop = (): void => {
    process.off('SIGINT', on);
    process.off('SIGTERM', on);
  };
  process.on('SIGINT', on);
  process.on('SIGTERM', on);
  return {
    get received() {
      return received;
    },
    stop,
  };
}

/** Commands waiting to hear that stdout's reader went away; once one took it, it stays taken. */
const outputWaiters = new Set<() => void>();
let outputTaken = false;

/**
 * Resolves when the reader of stdout goes away (EPIPE: `listen | head -1`, a closed terminal), for
 * a long-running command that must undo something before it ends (`listen` disables its endpoint)
 * rather than be cut short where it stands.
 */
export function untilOutputClosed(): Promise<void> {
  return new Promise((resolve) => outputWaiters.add(resolve));
}

/**
 * Called by the entry point on EPIPE: true when a command waits for it and will end by itself
 * (the process must not exit under it), false when none does (then exiting at once is right).
 */
export function outputClosed(): boolean {
  if (outputTaken) return true;
  if (outputWaiters.size === 0) return false;
  outputTaken = true;
  for (const resolve of outputWaiters) resolve();
  outputWaiters.clear();
  return true;
}
