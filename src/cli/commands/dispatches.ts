// `twinworld dispatches`: the deferred dispatches in a world's trigger twin — list them by state,
// inspect one (its plan, envelope and run), cancel one still waiting. Works on the store alone,
// so a dispatch whose process is gone is listed and cancelled like any other.
import { DISPATCH_STATES, type DispatchState } from '../../triggers/deferred/dispatch-record.js';
import type { DispatchDetail, DispatchStatus } from '../../triggers/deferred/dispatch-status.js';
import {
  cancelDispatch,
  inspectDispatch,
  listDispatches,
} from '../../triggers/deferred/operations.js';
import {
  countOption,
  stringOption,
  UsageError,
  withWorld,
  type Command,
  type ParsedArgs,
} from '../command.js';
import { printJson, Table, truncate, write } from '../output.js';
import { checkTenantId } from '../../triggers/envelope.js';

const ACTIONS = ['list', 'inspect', 'cancel'] as const;

function state(args: ParsedArgs): DispatchState | undefined {
  const s = stringOption(args, 'state');
  return s as DispatchState | undefined;
}

function row(d: DispatchStatus): string[] {
  return [
    d.dispatchId,
    d.state,
    d.tenantId,
    d.triggerId,
    d.dueAt ?? '-',
    String(d.pings),
    d.concurrency === null ? '-' : `${d.concurrency.key || '(all)'}/${d.concurrency.limit}`,
    d.run === null ? (d.reason ?? '-') : `${d.run.status} #${d.run.attempt ?? '?'}`,
    truncate(d.dedupeKey, 40),
  ];
}

/** Milliseconds as a person reads a period: "90000 ms (1 min 30 s)". */
function period(ms: number): string {
  const parts: string[] = [];
  let rest = Math.round(ms / 1000);
  for (const [unit, size] of [
    ['d', 86_400],
    ['h', 3_600],
    ['min', 60],
    ['s', 1],
  ] as const) {
    if (rest >= size) parts.push(`${Math.floor(rest / size)} ${unit}`);
    rest %= size;
  }
  return parts.length === 0 ? `${ms} ms` : `${ms} ms (${parts.join(' ')})`;
}

/** The plan the dispatch was taken in with, and what it carries: what `inspect` promises. */
function planLines(d: DispatchDetail): [string, string][] {
  const { plan, envelope: e } = d;
  const lines: [string, string][] = [];
  if (plan.delay !== null)
    lines.push(['delay', 'ms' in plan.delay ? period(plan.delay.ms) : `until ${plan.delay.until}`]);
  if (plan.debounce !== null)
    lines.push([
      'debounce',
      `key ${JSON.stringify(plan.debounce.key)}, ${plan.debounce.mode}, period ${period(plan.debounce.period)}${plan.debounce.maxWait === null ? '' : `, max wait ${period(plan.debounce.maxWait)}`}`,
    ]);
  if (plan.concurrency !== null)
    lines.push([
      'concurrency',
      `key ${JSON.stringify(plan.concurrency.key)}, limit ${plan.concurrency.limit}, on limit ${plan.concurrency.onLimit}, ticket ${d.concurrency?.ticket ?? '-'}${d.concurrency?.running === true ? ', holds a slot' : ''}`,
    ]);
  if (plan.ttl !== null) lines.push(['ttl', period(plan.ttl)]);
  const bytes = Buffer.byteLength(JSON.stringify(e.payload), 'utf8');
  lines.push([
    'envelope',
    `event ${e.eventId} from ${e.source.kind}/${e.source.provider}, occurred ${e.occurredAt}, payload ${bytes} bytes (--json prints it)`,
  ]);
  return lines;
}

function describe(d: DispatchDetail): string {
  const lines: [string, string][] = [
    ['dispatch', d.dispatchId],
    ['state', d.state],
    ['tenant', d.tenantId],
    ['scope', d.scopeId],
    ['trigger', d.triggerId],
    ['routine', d.routineId],
    ['carries', `${d.dedupeKey} (record ${d.recordId})`],
    ['created', d.createdAt],
    ['runs at', d.runAt],
    ['due', d.dueAt ?? '-'],
    ['expires', d.expiresAt ?? '-'],
    ['pings', `${d.pings} (last ${d.lastPingAt})`],
    ...planLines(d),
  ];
  if (d.dispatchedAt !== null)
    lines.push(['dispatched', `${d.dispatchedAt} (fence ${d.fence}, owner ${d.owner ?? '-'})`]);
  if (d.endedAt !== null) lines.push(['ended', `${d.endedAt} (${d.reason ?? '-'})`]);
  if (d.run !== null) {
    lines.push([
      'run',
      `${d.run.status}, attempt ${d.run.attempt ?? '?'}, record ${d.run.recordId}${d.run.error === null ? '' : `, error ${d.run.error}`}`,
    ]);
    if (d.run.status === 'triggered') lines.push(['result', JSON.stringify(d.run.routineResult)]);
  }
  const width = Math.max(...lines.map(([k]) => k.length));
  return lines.map(([k, v]) => `${k.padEnd(width)}  ${v}\n`).join('');
}

export const dispatchesCommand: Command = {
  name: 'dispatches',
  summary: 'List, inspect and cancel deferred dispatches',
  usage:
    'dispatches list [--state S] [--tenant T] [--limit N] [--root DIR | --store URL] [--json]\n       twinworld dispatches inspect ID [--root DIR | --store URL] [--json]\n       twinworld dispatches cancel ID [--root DIR | --store URL] [--json]',
  description: [
    'Deferred dispatches are the runs a route put off: delayed, debounced (a burst coalesced into one',
    'run), queued behind a concurrency limit, or expired by their ttl. `list` shows them newest first,',
    `by state (${DISPATCH_STATES.join(', ')}); \`inspect\` one with its plan,`,
    'envelope and, once it ran, its run; `cancel` one still delayed, debounced or queued — also one',
    'made by a process that is gone. Cancelling twice is not an error; a dispatched or expired one is',
    'refused (DISPATCH_NOT_CANCELLABLE).',
  ].join('\n'),
  arguments: [
    ['ACTION', 'list, inspect or cancel'],
    ['ID', 'a dispatch id (dsp_…), for inspect and cancel'],
  ],
  positionals: { min: 1, max: 2 },
  options: {
    state: {
      type: 'string',
      value: { kind: 'choice', choices: DISPATCH_STATES },
      short: 's',
      arg: 'S',
      description: 'list: only dispatches in state S',
    },
    tenant: {
      type: 'string',
      value: { kind: 'check', check: (raw) => checkTenantId(raw, 'tenant', 'INVALID_ARGUMENT') },
      short: 't',
      arg: 'T',
      description: 'list: only tenant T',
    },
    limit: {
      type: 'string',
      value: { kind: 'count', min: 1 },
      short: 'n',
      arg: 'N',
      description: 'list: at most N (default 100)',
    },
  },
  jsonHelp:
    'list: a JSON array of dispatches; inspect: one dispatch with plan and envelope; cancel: {changed, dispatch}',
  async run(args, io) {
    const [action, id] = args.positionals;
    if (!ACTIONS.includes(action as (typeof ACTIONS)[number]))
      throw new UsageError(`unknown action "${action}"; use ${ACTIONS.join(', ')}`);
    if (action === 'list') {
      if (id !== undefined) throw new UsageError(`list takes no ID (got "${id}")`);
      const s = state(args);
      const tenant = stringOption(args, 'tenant');
      const limit = countOption(args, 'limit') ?? 100;
      // A missing root is refused (ROOT_NOT_FOUND), never created nor listed as empty.
      const rows = await withWorld(
        args.store,
        (world) =>
          listDispatches(world, {
            limit,
            ...(s === undefined ? {} : { state: s }),
            ...(tenant === undefined ? {} : { tenant }),
          }),
        { create: false },
      );
      if (args.json) await printJson(io, rows);
      else if (rows.length === 0)
        await write(io.stdout, `no dispatches${s === undefined ? '' : ` ${s}`}\n`);
      else
        await write(
          io.stdout,
          new Table([
            'DISPATCH',
            'STATE',
            'TENANT',
            'TRIGGER',
            'DUE',
            'PINGS',
            'GATE',
            'RUN',
            'KEY',
          ]).render(rows.map(row)),
        );
      return 0;
    }
    if (id === undefined) throw new UsageError(`${action} needs a dispatch ID`);
    for (const flag of ['state', 'tenant', 'limit'])
      if (args.values[flag] !== undefined)
        throw new UsageError(`--${flag} is for list, not ${action}`);
    if (action === 'inspect') {
      const detail = await withWorld(args.store, (world) => inspectDispatch(world, id), {
        create: false,
      });
      if (args.json) await printJson(io, detail);
      else await write(io.stdout, describe(detail));
      return 0;
    }
    const answer = await withWorld(args.store, (world) => cancelDispatch(world, id), {
      create: false,
    });
    if (args.json) await printJson(io, answer);
    else
      await write(
        io.stdout,
        answer.changed
          ? `cancelled ${id}\n`
          : `${id} was cancelled already (${answer.dispatch.endedAt ?? '-'})\n`,
      );
    return 0;
  },
};
