// The `twinworld` commands by name, each loaded only when asked for: a command's module pulls in
// what it runs on (packs, storage, the host, schedules…), and a process that runs one command
// should not compile every other one first. Start-up is paid by every call a script or a test
// makes, so `twinworld hash` loads the hash command and the world, not the console's server.
import type { Command } from './command.js';

interface CommandEntry {
  readonly name: string;
  readonly load: () => Promise<Command>;
}

/** In the order `twinworld --help` lists them. */
const TABLE: readonly CommandEntry[] = [
  { name: 'demo', load: async () => (await import('./commands/demo.js')).demoCommand },
  { name: 'walk', load: async () => (await import('./commands/walk.js')).walkCommand },
  { name: 'write', load: async () => (await import('./commands/write.js')).writeCommand },
  { name: 'log', load: async () => (await import('./commands/log.js')).logCommand },
  { name: 'state', load: async () => (await import('./commands/state.js')).stateCommand },
  { name: 'hash', load: async () => (await import('./commands/hash.js')).hashCommand },
  { name: 'export', load: async () => (await import('./commands/export.js')).exportCommand },
  { name: 'import', load: async () => (await import('./commands/import.js')).importCommand },
  { name: 'replay', load: async () => (await import('./commands/replay.js')).replayCommand },
  { name: 'verify', load: async () => (await import('./commands/verify.js')).verifyCommand },
  { name: 'send', load: async () => (await import('./commands/send.js')).sendCommand },
  {
    name: 'endpoints',
    load: async () => (await import('./commands/endpoints.js')).endpointsCommand,
  },
  { name: 'trigger', load: async () => (await import('./commands/trigger.js')).triggerCommand },
  {
    name: 'deliveries',
    load: async () => (await import('./commands/deliveries.js')).deliveriesCommand,
  },
  {
    name: 'attempts',
    load: async () => (await import('./commands/deliveries.js')).attemptsCommand,
  },
  { name: 'recover', load: async () => (await import('./commands/recover.js')).recoverCommand },
  {
    name: 'redeliver',
    load: async () => (await import('./commands/recover.js')).redeliverCommand,
  },
  { name: 'work', load: async () => (await import('./commands/work.js')).workCommand },
  { name: 'serve', load: async () => (await import('./commands/serve.js')).serveCommand },
  { name: 'up', load: async () => (await import('./commands/up.js')).upCommand },
  {
    name: 'triggers',
    load: async () => (await import('./commands/triggers.js')).triggersCommand,
  },
  {
    name: 'dispatches',
    load: async () => (await import('./commands/dispatches.js')).dispatchesCommand,
  },
  { name: 'tick', load: async () => (await import('./commands/tick.js')).tickCommand },
  {
    name: 'schedules',
    load: async () => (await import('./commands/schedules.js')).schedulesCommand,
  },
  { name: 'console', load: async () => (await import('./commands/console.js')).consoleCommand },
  { name: 'tail', load: async () => (await import('./commands/tail.js')).tailCommand },
  { name: 'listen', load: async () => (await import('./commands/listen.js')).listenCommand },
];

export const COMMAND_NAMES: readonly string[] = TABLE.map((e) => e.name);

/** The command called `name`, loaded; undefined for a name that is no command. */
export async function loadCommand(name: string): Promise<Command | undefined> {
  return TABLE.find((e) => e.name === name)?.load();
}

/** Every command, loaded (the full help and completion scripts list them all). */
export async function loadCommands(): Promise<readonly Command[]> {
  return Promise.all(TABLE.map((e) => e.load()));
}
