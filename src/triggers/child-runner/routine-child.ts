// The child process of ChildProcessRunner: loads the routine module named on its command line,
// answers one request from its parent (list the routine ids, or run one routine under the run
// lock) and exits. It exits too when its parent goes away, so no run outlives its owner for long;
// the run lock covers the moment between.
import { pathToFileURL } from 'node:url';
import type { JsonValue } from '../../log/json-value.js';
import { RoutineRegistry, type RoutineStore } from '../routine-store.js';
import type { RunLock } from '../run-lock.js';
import type { ChildRoutineFn, FromChild, ToChild } from './child-protocol.js';
import { FileRunLock } from './file-run-lock.js';

interface Loaded {
  readonly routines: RoutineStore<ChildRoutineFn>;
  readonly lock: RunLock | undefined;
}

function isStore(value: unknown): value is RoutineStore<ChildRoutineFn> {
  const v = value as { get?: unknown; ids?: unknown } | null;
  return typeof v?.get === 'function' && typeof v.ids === 'function';
}

/** The module's `routines` export: a routine store, or an object of functions by id. */
async function load(modulePath: string): Promise<Loaded> {
  const mod = (await import(pathToFileURL(modulePath).href)) as {
    routines?: unknown;
    lock?: unknown;
  };
  const { routines, lock } = mod;
  if (lock !== undefined && typeof (lock as { acquire?: unknown } | null)?.acquire !== 'function')
    throw new Error('its `lock` export is not a run lock ({ acquire(key) })');
  const runLock = lock as RunLock | undefined;
  if (isStore(routines)) return { routines, lock: runLock };
  if (routines === null || typeof routines !== 'object')
    throw new Error(
      'it exports no `routines` (a routine store, or an object of functions by routine id)',
    );
  const registry = new RoutineRegistry<ChildRoutineFn>();
  for (const [id, fn] of Object.entries(routines)) registry.register(id, fn as ChildRoutineFn);
  return { routines: registry, lock: runLock };
}

function errorName(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && /^[A-Za-z][A-Za-z0-9_]{0,63}$/.test(code)) return code;
  if (error instanceof Error && /^[A-Za-z][A-Za-z0-9_]{0,63}$/.test(error.name)) return error.name;
  return 'THROWN';
}

async function answer(request: ToChild, modulePath: string): Promise<FromChild> {
  let loaded: Loaded;
  try {
    loaded = await load(modulePath);
  } catch (error) {
    return { kind: 'unloadable', message: error instanceof Error ? error.message : String(error) };
  }
  if (request.kind === 'list') return { kind: 'ids', ids: loaded.routines.ids() };
  const fn = loaded.routines.get(request.context.routineId);
  if (fn === undefined) return { kind: 'unknown', ids: loaded.routines.ids() };
  const lock =
    loaded.lock ?? (request.lockDir === null ? undefined : new FileRunLock(request.lockDir));
  const hold = await lock?.acquire(request.context.recordId);
  if (lock !== undefined && hold === undefined) return { kind: 'locked' };
  try {
    const result: JsonValue | undefined = await fn(request.input, request.context);
    return { kind: 'done', result: result === undefined ? null : result };
  } catch (error) {
    return {
      kind: 'threw',
      name: errorName(error),
      message: error instanceof Error ? error.message : String(error),
    };
  } finally {
    await hold?.release();
  }
}

/** Sends the one reply and exits; a reply that cannot be sent (a result that is not JSON) is a throw. */
function reply(message: FromChild): void {
  try {
    process.send?.(message, () => process.exit(0));
  } catch (error) {
    const failed: FromChild = {
      kind: 'threw',
      name: 'INVALID_RESULT',
      message: `the reply could not be sent to the parent: ${String(error)}`,
    };
    process.send?.(failed, () => process.exit(0));
  }
}

const modulePath = process.argv[2] ?? '';
// The parent gone (killed, crashed): stop now rather than finish a run nobody will record.
process.on('disconnect', () => process.exit(1));
process.once('message', (request: ToChild) => {
  void answer(request, modulePath).then(reply, (error: unknown) =>
    reply({ kind: 'threw', name: errorName(error), message: String(error) }),
  );
});
