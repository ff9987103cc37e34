// `twinworld tail`: streams what any process appends to the store — entries, delivery records and
// attempts, trigger answers — as it happens, until SIGINT/SIGTERM. See docs/console.md.
import { followEntries } from '../../host/follow.js';
import { describeEntry, recordTypes } from '../../host/describe-entry.js';
import { builtInPacks } from '../../../packs/built-in.js';
import { registerPack } from '../../events/pack-registry.js';
import { RealClock } from '../../world/clock.js';
import { validateTwinName } from '../../world/world.js';
import { countOption, UsageError, type Command } from '../command.js';
import { colourOn, painter, stateColour } from '../colour.js';
import { write } from '../output.js';
import { untilSignal } from '../signals.js';
import { openStoreWorld } from '../store.js';

/** A repeatable, comma-separable option as a list; undefined when absent. */
function listOption(raw: unknown): string[] | undefined {
  if (raw === undefined) return undefined;
  const values = (Array.isArray(raw) ? raw : [raw])
    .flatMap((v) => String(v).split(','))
    .map((v) => v.trim())
    .filter((v) => v !== '');
  return values.length === 0 ? undefined : values;
}

export const tailCommand: Command = {
  name: 'tail',
  summary: 'Stream entries, deliveries and trigger answers as any process appends them',
  usage: 'tail [--twin T] [--type TYPE] [--poll MS] [--root DIR | --store URL] [--json]',
  description: [
    'Follows the log heads of every twin on the store and prints each entry appended from now on,',
    'by whichever process: delivery records as they are queued and settle, attempts as they finish',
    '(status, outcome), trigger answers, and every other write. Runs until Ctrl-C.',
    '--twin and --type (repeatable or comma-separated) keep only those twins and subject types.',
  ].join('\n'),
  arguments: [],
  positionals: { min: 0, max: 0 },
  options: {
    twin: {
      type: 'string',
      value: { kind: 'text', nonEmpty: true },
      short: 't',
      arg: 'T',
      multiple: true,
      description: 'only twin T',
    },
    type: {
      type: 'string',
      value: { kind: 'text', nonEmpty: true },
      arg: 'TYPE',
      multiple: true,
      description: 'only subject type TYPE',
    },
    poll: {
      type: 'string',
      value: { kind: 'count', min: 1 },
      arg: 'MS',
      description: 'how often the log heads are read (default 100)',
    },
  },
  jsonHelp:
    'print one JSON object per entry: {kind: entry|delivery|attempt|trigger, twin, seq, recordedAt, operation, subjectType, subjectId, state?, status?, eventType?, url?, text}',
  async run(args, io) {
    const twins = listOption(args.values.twin);
    for (const t of twins ?? []) validateTwinName(t);
    const types = listOption(args.values.type);
    const pollMs = countOption(args, 'poll');
    if (pollMs === 0) throw new UsageError('--poll must be at least 1 ms');
    // Listening from the start: a Ctrl-C while starting up still ends in the orderly stop below.
    const stopped = untilSignal();
    const world = await openStoreWorld(args.store, { clock: new RealClock(), create: false });
    try {
      for (const pack of builtInPacks) registerPack(world, pack);
      const records = recordTypes(world);
      const paint = painter(colourOn(io, args.json));
      const follower = await followEntries(world, {
        ...(twins === undefined ? {} : { twins }),
        ...(pollMs === undefined ? {} : { pollMs }),
        onEntry: async (entry) => {
          if (types !== undefined && !types.includes(entry.subjectType)) return;
          const d = describeEntry(entry, records);
          await write(
            io.stdout,
            args.json
              ? `${JSON.stringify(d)}\n`
              : `${paint(d.kind === 'entry' ? 'dim' : stateColour(d.state), d.text)}\n`,
          );
        },
      });
      // On stderr, so stdout stays the stream; a script waits for it to know tailing has begun.
      await write(io.stderr, `tailing ${args.store.label} (Ctrl-C stops)\n`);
      // A --twin the store does not hold yet is followed all the same (it may appear), but a
      // typo would otherwise show nothing, silently, for ever: say so, once.
      const held = await world.twinNames();
      for (const t of twins ?? [])
        if (!held.includes(t))
          await write(
            io.stderr,
            `no twin "${t}" on ${args.store.label} yet: its entries show once it appears (twins now: ${held.join(', ') || 'none'})\n`,
          );
      await stopped;
      await follower.stop();
    } finally {
      await world.close();
    }
    return 0;
  },
};
