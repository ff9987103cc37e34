// Mounting the console on a host that serves control handlers under /_twinworld/<name> (the
// vendor-surface host's `mount`): the console then answers at /_twinworld/console/ with the same
// token rule. Typed structurally, so any host with such a `mount` takes it. See docs/console.md.
import { createConsoleHandler, type ConsoleHandler, type ConsoleOptions } from './handler.js';

const CONSOLE_MOUNT = '/_twinworld/console';

export interface MountingHost {
  mount(name: string, handler: (request: Request) => Promise<Response> | Response): void;
}

/** Mounts the console on `host` under /_twinworld/console; close the answer with the host. */
export function mountConsole(
  host: MountingHost,
  options: Omit<ConsoleOptions, 'basePath'>,
): ConsoleHandler {
  const console_ = createConsoleHandler({ ...options, basePath: CONSOLE_MOUNT });
  host.mount('console', (request) => console_.fetch(request));
  return console_;
}
