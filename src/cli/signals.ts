// Waiting for the operator's stop: the long-running commands (serve, work) share it.

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
