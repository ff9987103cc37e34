// `twinworld endpoints`: webhook endpoints registered the way each vendor registers them (a
// Stripe webhook endpoint, a GitHub repository or organization hook, a Slack app, a Standard
// Webhooks endpoint), listed, disabled, enabled and removed. Deliveries a registration queues (a
// GitHub hook's ping) are listed; a running worker sends them.
import {
  findEndpoint,
  locateEndpoints,
  setEndpointEnabled,
  type LocatedEndpoint,
} from '../../events/endpoint-lookup.js';
import { stringOption, UsageError, type CliIO, type Command } from '../command.js';
import { endpointOptionsFor, packEndpointOptions } from '../endpoint-options.js';
import { printJson, Table, write } from '../output.js';
import { cliPack, cliPacks, watchQueued, type QueuedDelivery } from '../pack-cli.js';
import { withPackWorld } from '../pack-world.js';

const ACTIONS = ['add', 'list', 'disable', 'enable', 'remove'] as const;
type Action = (typeof ACTIONS)[number];
const ADD_ONLY = ['url', 'secret', 'events'];

/** `--events a,b`: the types given, or undefined (every type) when the flag is absent or empty. */
function parseEvents(raw: string | undefined): string[] | undefined {
  if (raw === undefined) return undefined;
  const events = raw
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '');
  // A type given twice would be stored twice, and listed so.
  return events.length === 0 ? undefined : [...new Set(events)];
}

function row(e: LocatedEndpoint): string[] {
  return [
    e.pack,
    e.id,
    e.kind,
    e.scope ?? '-',
    e.enabled ? 'enabled' : 'disabled',
    e.health.failures === 0 ? e.health.state : `${e.health.state} (${e.health.failures} failed)`,
    e.health.reason ?? '-',
    e.recent.rate === null ? '-' : `${Math.round(e.recent.rate * 100)}% of ${e.recent.attempts}`,
    e.events.join(','),
    e.url,
  ];
}

async function printQueued(io: CliIO, queued: readonly QueuedDelivery[]): Promise<void> {
  for (const q of queued)
    await write(
      io.stdout,
      `  queued   ${q.id} (${q.eventType}; a running \`twinworld work\` sends it)\n`,
    );
}

export const endpointsCommand: Command = {
  name: 'endpoints',
  summary: 'Register, list, disable, enable and remove webhook endpoints',
  usage: [
    'endpoints add <pack> --url URL [--secret S] [--events a,b|*] [pack options] [--root DIR | --store URL] [--json]',
    '       twinworld endpoints list [<pack>] [--all] [--root DIR | --store URL] [--json]',
    '       twinworld endpoints disable|enable|remove <id> [--pack P] [--root DIR | --store URL] [--json]',
  ].join('\n'),
  description: [
    "`add` registers an endpoint the vendor's way and prints its id and signing secret:",
    '  stripe             a webhook endpoint (we_…, a whsec_ secret, enabled_events)',
    '  github             a repository hook (--repo owner/name) or an organization hook (--org login);',
    '                     the repository or organization must exist; the hook is sent a ping',
    '  slack              an app: Request URL (also its Interactivity URL) and signing secret',
    '  standard-webhooks  an endpoint (ep_…, a whsec_ secret, filterTypes)',
    "The secret is generated the vendor's way when --secret is absent, and kept in the world's",
    'secret store, never in the log. Without --events (or with an empty one) the endpoint takes',
    'every event type; "*" says so explicitly. Deliveries it queues are sent by `twinworld work`.',
    '`list` shows every endpoint (of one pack), its health, why it last changed, and how many of its',
    'last 20 attempts succeeded; the endpoints `twinworld send` made for one event each are left out',
    'unless --all is given. `disable`, `enable` and `remove` act on one by id.',
  ].join('\n'),
  arguments: [
    ['<action>', ACTIONS.join(', ')],
    [
      '<pack>',
      `for add (and list): ${cliPacks()
        .map((p) => p.name)
        .join(', ')}`,
    ],
    ['<id>', 'for disable, enable, remove: the endpoint id `list` shows'],
  ],
  positionals: { min: 1, max: 2 },
  options: {
    url: {
      type: 'string',
      value: { kind: 'url' },
      arg: 'URL',
      description: 'add: where deliveries go',
    },
    secret: {
      type: 'string',
      value: { kind: 'text', nonEmpty: true },
      arg: 'S',
      description: "add: the signing secret (generated the vendor's way when absent)",
    },
    events: {
      type: 'string',
      value: { kind: 'text' },
      arg: 'a,b|*',
      description: 'add: the event types it takes, comma-separated; all when absent',
    },
    pack: {
      type: 'string',
      value: { kind: 'text', nonEmpty: true },
      short: 'p',
      arg: 'P',
      description: 'disable/enable/remove: only in pack P',
    },
    all: {
      type: 'boolean',
      description:
        'list: also the one-shot endpoints `twinworld send` made (retired after their send)',
    },
    ...packEndpointOptions(),
  },
  jsonHelp: 'print the endpoint (add: with its secret and queued deliveries) as JSON',
  async run(args, io) {
    const [action, target] = args.positionals as [string, string | undefined];
    if (!(ACTIONS as readonly string[]).includes(action))
      throw new UsageError(`unknown action "${action}"; use one of ${ACTIONS.join(', ')}`);
    const given = (name: string) => args.values[name] !== undefined;
    if (action !== 'add') {
      const misplaced = [...ADD_ONLY, ...Object.keys(packEndpointOptions())].find(given);
      if (misplaced !== undefined) throw new UsageError(`--${misplaced} is only for endpoints add`);
    }
    if (action !== 'list' && given('all')) throw new UsageError('--all is only for endpoints list');
    switch (action as Action) {
      case 'add': {
        // First: `add --pack stripe` has no <pack> either, and "needs <pack>" alone reads as a riddle.
        if (given('pack'))
          throw new UsageError('endpoints add takes the pack as <pack>, not --pack');
        if (target === undefined) throw new UsageError('endpoints add needs <pack>');
        const pack = cliPack(target);
        const options = endpointOptionsFor(pack, args);
        const rawUrl = stringOption(args, 'url');
        if (rawUrl === undefined) throw new UsageError('endpoints add needs --url URL');
        const url = rawUrl;
        const secret = stringOption(args, 'secret');
        // A secret pasted with its line break would sign with it, and no receiver's copy has one.
        if (secret !== undefined && /[\r\n]/.test(secret))
          throw new UsageError(
            '--secret holds a line break (the value is not shown); no vendor secret has one: give it on one line',
          );
        const events = parseEvents(stringOption(args, 'events'));
        // Before the root is opened (or created): a refused add leaves nothing behind.
        pack.cli.checkEndpoint?.({
          url,
          ...(secret === undefined ? {} : { secret }),
          ...(events === undefined ? {} : { events }),
          options,
        });
        return withPackWorld(
          args.store,
          async (world) => {
            const twin = world.twin(pack.twin);
            const watch = watchQueued(world);
            let added;
            try {
              added = await pack.cli.addEndpoint(twin, {
                url,
                ...(secret === undefined ? {} : { secret }),
                ...(events === undefined ? {} : { events }),
                options,
              });
            } finally {
              watch.stop();
            }
            if (args.json) await printJson(io, { pack: pack.name, ...added, queued: watch.queued });
            else {
              await write(io.stdout, `${pack.name} ${added.kind} ${added.id} → ${added.url}\n`);
              await write(io.stdout, `  secret   ${added.secret}\n`);
              await write(io.stdout, `  events   ${added.events.join(',')}\n`);
              if (added.scope !== undefined) await write(io.stdout, `  on       ${added.scope}\n`);
              await printQueued(io, watch.queued);
            }
            return 0;
          },
          { dispatcher: { autoDispatch: false } },
        );
      }
      case 'list': {
        if (given('pack'))
          throw new UsageError('endpoints list takes the pack as <pack>, not --pack');
        const packName = target === undefined ? undefined : cliPack(target).name;
        return withPackWorld(
          args.store,
          async (world) => {
            const every = await locateEndpoints(world, packName);
            const rows = args.values.all === true ? every : every.filter((e) => !e.send);
            const left = every.length - rows.length;
            const leftOut = `${left} one-shot endpoint${left === 1 ? '' : 's'} of \`twinworld send\` not shown; --all lists ${left === 1 ? 'it' : 'them'}\n`;
            if (args.json) await printJson(io, rows);
            else if (rows.length === 0)
              await write(
                io.stdout,
                left === 0 ? 'no endpoints\n' : `no endpoints (${leftOut.trimEnd()})\n`,
              );
            else {
              await write(
                io.stdout,
                new Table([
                  'PACK',
                  'ID',
                  'KIND',
                  'ON',
                  'STATE',
                  'HEALTH',
                  'WHY',
                  'SUCCESS',
                  'EVENTS',
                  'URL',
                ]).render(rows.map(row)),
              );
              if (left > 0) await write(io.stdout, leftOut);
            }
            return 0;
          },
          { create: false },
        );
      }
      default: {
        if (target === undefined) throw new UsageError(`endpoints ${action} needs <id>`);
        const packOption = stringOption(args, 'pack');
        const packName = packOption === undefined ? undefined : cliPack(packOption).name;
        return withPackWorld(
          args.store,
          async (world) => {
            const endpoint = await findEndpoint(world, target, packName);
            const { cli, twin: twinName } = cliPack(endpoint.pack);
            let after;
            if (action === 'remove') {
              await cli.removeEndpoint(world.twin(twinName), endpoint);
              after = { ...endpoint, removed: true };
            } else after = await setEndpointEnabled(world, endpoint, action === 'enable');
            if (args.json) await printJson(io, after);
            else
              await write(
                io.stdout,
                `${action === 'remove' ? 'removed' : `${action}d`} ${endpoint.pack} ${endpoint.kind} ${endpoint.id}\n`,
              );
            return 0;
          },
          { create: false, dispatcher: { autoDispatch: false } },
        );
      }
    }
  },
};
