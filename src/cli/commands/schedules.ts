// `twinworld schedules`: declare, list, inspect, pause and resume schedules, read and prune their
// fire ledger, and backfill past occurrences. Claiming and running what falls due is the worker's
// (`twinworld work`, `serve`); every subcommand here is one call of the Schedules service.
import { DEFAULT_TENANT } from '../../host/serve/config.js';
import {
  Schedules,
  type FireView,
  type Inspection,
  type OutcomeFilter,
  type ScheduleView,
} from '../../triggers/schedules/index.js';
import { formatOverlap } from '../../triggers/schedules/overlap.js';
import { listEnabledSchedules } from '../../triggers/schedules/list-enabled.js';
import { MAX_INSPECT_NEXT } from '../../triggers/schedules/inspect.js';
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
import { timeFlag } from '../flags.js';
import { existsAlready, readAddFlags } from './schedules-add.js';
import { TwinError } from '../../errors.js';
import { validateCalendarSpec } from '../../triggers/cron/occurrences.js';
import { DEFAULT_TIMEZONE } from '../../triggers/schedules/index.js';
import { parseOverlap } from '../../triggers/schedules/overlap.js';
import { parseCatchUp } from '../../triggers/schedules/declaration.js';
import { checkOutcome, decodeCursor, MAX_HISTORY_LIMIT } from '../../triggers/schedules/ledger.js';

const SUBCOMMANDS = ['add', 'list', 'inspect', 'history', 'pause', 'resume', 'prune', 'backfill'];
const NEEDS_ID = new Set(['add', 'inspect', 'pause', 'resume', 'backfill']);

/** An ISO time, or a date (midnight UTC) as a convenience; anything else the service refuses. */
function timeOption(args: ParsedArgs, name: string): string {
  const time = timeFlag(args.values, name);
  if (time === undefined) throw new UsageError(`--${name} DATE is required`);
  return time;
}

function revisionOption(args: ParsedArgs): number | undefined {
  return countOption(args, 'revision');
}

function catchUpText(s: ScheduleView): string {
  return s.catchUp.kind === 'all' ? `all:${s.catchUp.max}` : s.catchUp.kind;
}

async function printSchedule(io: Parameters<Command['run']>[1], s: ScheduleView): Promise<void> {
  await write(
    io.stdout,
    [
      `schedule ${s.scheduleId} (tenant ${s.tenantId}) revision ${s.revision}${s.enabled ? '' : ' — paused'}`,
      `  cron      ${s.cron} in ${s.timezone}`,
      `  routine   ${s.routine} ${JSON.stringify(s.input)}`,
      `  overlap   ${formatOverlap(s.overlap)}    catch-up ${catchUpText(s)}`,
      `  next      ${s.enabled ? (s.nextAt ?? 'none') : '(paused)'}`,
      '',
    ].join('\n'),
  );
}

function historyRow(r: FireView): string[] {
  return [
    r.nominalAt,
    r.scheduleId,
    r.outcome ?? `(${r.state})`,
    r.reason ?? '',
    r.runId ?? r.reservationId ?? '-',
    r.launchedAt ?? '-',
    r.finishedAt ?? '-',
    truncate(
      r.error ??
        (r.lateObservation === null
          ? ''
          : `late ${r.lateObservation.outcome} from ${r.lateObservation.owner}`),
      40,
    ),
  ];
}

async function printInspection(io: Parameters<Command['run']>[1], i: Inspection): Promise<void> {
  await printSchedule(io, i.schedule);
  const lines: string[] = [];
  lines.push(`  active    ${i.active.length === 0 ? 'none' : ''}`);
  for (const a of i.active)
    lines.push(
      `    ${a.nominalAt}  ${a.state}  ${a.activeRunId ?? '(unreserved)'}  owner ${a.owner ?? '-'} until ${a.leaseUntil ?? '-'}`,
    );
  lines.push(
    `  buffer    ${i.buffer.length === 0 ? 'empty' : i.buffer.map((b) => b.nominalAt).join(', ')}`,
  );
  lines.push(
    `  upcoming  ${i.next.map((n) => `${n.nominalAt}${n.dst === 'normal' ? '' : ` (${n.dst})`}`).join(', ') || 'none'}`,
  );
  lines.push(
    `  hosts     ${i.hosts.length === 0 ? 'none alive' : i.hosts.map((h) => `${h.owner}${h.label === null ? '' : ` (${h.label})`} beat ${h.beatAt}`).join(', ')}`,
  );
  if (i.hosts.length === 0 && i.lastHeartbeat !== null)
    lines.push(
      `            last heartbeat ${i.lastHeartbeat.beatAt} from ${i.lastHeartbeat.owner}`,
    );
  await write(io.stdout, `${lines.join('\n')}\n`);
}

export const schedulesCommand: Command = {
  name: 'schedules',
  summary: 'Declare schedules, read their fire ledger, backfill',
  usage: [
    'schedules add <id> --cron EXPR [--tz ZONE] [--routine NAME] [--input JSON] [--overlap P] [--catch-up C] [--revision N] [--paused]',
    '       twinworld schedules list [--enabled]',
    '       twinworld schedules inspect <id> [--next N]',
    '       twinworld schedules history [<id>] [--outcome O] [--run RUN] [--limit N] [--cursor C]',
    '       twinworld schedules pause|resume <id> [--revision N]',
    '       twinworld schedules prune --before DATE',
    '       twinworld schedules backfill <id> --from DATE --to DATE [--overlap P]',
    '       (each takes [--tenant T] [--root DIR | --store URL] [--json])',
  ].join('\n'),
  description: [
    'Schedules fire a routine on a cron expression (5 fields, or 6 with seconds first) in an IANA',
    'zone. Each occurrence is claimed once, however many workers run (`twinworld work`), and its',
    'overlap policy decides what happens while an earlier run is still going:',
    '  fire              launch it anyway (runs overlap)',
    '  skip              record it as skipped (the default)',
    '  buffer:N[:keep]   queue up to N, launched in order as runs end; a full buffer keeps its',
    '                    oldest (skips the newcomer) or its newest (drops the oldest queued)',
    '  supersede         cancel what is pending or running and launch the newcomer',
    'Occurrences missed while no worker ran follow --catch-up: skip, latest (default) or all:N.',
    'Every occurrence gets one row in the fire ledger: launched, completed, failed, skipped,',
    'buffered or superseded (none while reserved). `history` pages it newest first; `prune` removes',
    'settled rows older than a date, never a buffered or running one. A change made with --revision',
    'N is refused (REVISION_MISMATCH) when the schedule has moved on; `add` of an existing id needs it.',
    'Built-in routines: record (records its input) and wait (input {"ms": N}: finishes after N ms).',
  ].join('\n'),
  arguments: [
    ['subcommand', SUBCOMMANDS.join(', ')],
    ['id', 'the schedule id'],
  ],
  positionals: { min: 1, max: 2 },
  options: {
    tenant: {
      type: 'string',
      value: { kind: 'check', check: (raw) => checkTenantId(raw, 'tenant', 'INVALID_ARGUMENT') },
      short: 't',
      arg: 'T',
      description: `the tenant (default "${DEFAULT_TENANT}")`,
    },
    cron: {
      type: 'string',
      value: {
        kind: 'check',
        check: (raw) => validateCalendarSpec({ cron: raw, timezone: DEFAULT_TIMEZONE }),
      },
      arg: 'EXPR',
      description: "add: cron expression, e.g. '0 3 * * *' or '*/10 * * * * *'",
    },
    tz: {
      type: 'string',
      value: {
        kind: 'check',
        check: (raw) => validateCalendarSpec({ cron: '* * * * *', timezone: raw }),
      },
      arg: 'ZONE',
      description: 'add: IANA time zone (default UTC)',
    },
    routine: {
      type: 'string',
      value: { kind: 'text', nonEmpty: true },
      arg: 'NAME',
      description: 'add: the routine to run (default record)',
    },
    input: {
      type: 'string',
      value: { kind: 'json', example: '{"ms": 2500}' },
      arg: 'JSON',
      description: 'add: the routine input (default null; wait takes {"ms": N})',
    },
    overlap: {
      type: 'string',
      value: { kind: 'check', check: (raw) => parseOverlap(raw) },
      arg: 'P',
      description: 'add, backfill: fire | skip | buffer:N[:oldest|newest] | supersede',
    },
    'catch-up': {
      type: 'string',
      value: { kind: 'check', check: (raw) => parseCatchUp(raw, 'catch-up') },
      arg: 'C',
      description: 'add: skip | latest | all:N',
    },
    paused: { type: 'boolean', description: 'add: declare it paused' },
    enabled: { type: 'boolean', description: 'list: only the enabled schedules (not paused)' },
    revision: {
      type: 'string',
      value: { kind: 'count' },
      arg: 'N',
      description: 'add, pause, resume: the revision the change is made against',
    },
    next: {
      type: 'string',
      value: { kind: 'count', min: 1, max: MAX_INSPECT_NEXT },
      arg: 'N',
      description: `inspect: how many upcoming occurrences to show (default 5, at most ${MAX_INSPECT_NEXT})`,
    },
    outcome: {
      type: 'string',
      value: { kind: 'check', check: checkOutcome },
      arg: 'O',
      description: 'history: launched, completed, failed, skipped, buffered, superseded or pending',
    },
    run: {
      type: 'string',
      value: { kind: 'text', nonEmpty: true },
      arg: 'RUN',
      description: 'history: only the occurrence of this run id',
    },
    limit: {
      type: 'string',
      value: { kind: 'count', min: 1, max: MAX_HISTORY_LIMIT },
      short: 'n',
      arg: 'N',
      description: 'history: at most N rows (default 100)',
    },
    cursor: {
      type: 'string',
      value: { kind: 'check', check: decodeCursor },
      arg: 'C',
      description: 'history: the next-page cursor a previous page printed',
    },
    before: {
      type: 'string',
      value: { kind: 'time' },
      arg: 'DATE',
      description: 'prune: rows settled before this time (ISO, or YYYY-MM-DD)',
    },
    from: {
      type: 'string',
      value: { kind: 'time' },
      arg: 'DATE',
      description: 'backfill: first nominal time (ISO, or YYYY-MM-DD)',
    },
    to: {
      type: 'string',
      value: { kind: 'time' },
      arg: 'DATE',
      description: 'backfill: last nominal time, in the past',
    },
  },
  jsonHelp:
    'print the answer as one JSON value: the schedule (add, pause, resume), {items, undecodable} (list), the inspection, the history page {items, nextCursor, undecodable}, {removed, kept} (prune), the backfill report',
  async run(args, io) {
    const [sub, id] = args.positionals as [string, string | undefined];
    if (!SUBCOMMANDS.includes(sub))
      throw new UsageError(`unknown subcommand "${sub}"; use one of ${SUBCOMMANDS.join(', ')}`);
    if (NEEDS_ID.has(sub) && id === undefined)
      throw new UsageError(`schedules ${sub} needs the schedule id`);
    if (!NEEDS_ID.has(sub) && sub !== 'history' && id !== undefined)
      throw new UsageError(`schedules ${sub} takes no schedule id`);
    const tenantId = stringOption(args, 'tenant') ?? DEFAULT_TENANT;
    // Checked before the world opens: a refused add leaves no folder behind.
    const addFlags = sub === 'add' ? readAddFlags(args) : undefined;
    const answer = await withWorld(
      args.root,
      async (world) => {
        const schedules = new Schedules({ world });
        switch (sub) {
          case 'add': {
            const { revision, ...declaration } = addFlags!;
            return schedules
              .declare(
                { tenantId, scheduleId: id!, ...declaration },
                { expectedRevision: revision ?? 0 },
              )
              .catch((error: unknown) => {
                throw revision === undefined ? existsAlready(error, id!) : error;
              });
          }
          case 'pause':
          case 'resume': {
            const revision = revisionOption(args);
            const options = revision === undefined ? {} : { expectedRevision: revision };
            return sub === 'pause'
              ? schedules.pause(tenantId, id!, options)
              : schedules.resume(tenantId, id!, options);
          }
          case 'list':
            return args.values.enabled === true
              ? listEnabledSchedules(schedules, tenantId)
              : schedules.list(tenantId);
          case 'inspect':
            return schedules.inspect(tenantId, id!, { next: countOption(args, 'next') ?? 5 });
          case 'history': {
            const outcome = stringOption(args, 'outcome');
            const run = stringOption(args, 'run');
            const cursor = stringOption(args, 'cursor');
            const limit = countOption(args, 'limit');
            // A schedule id that names nothing is said, not answered with an empty page.
            if (id !== undefined && cursor === undefined && !(await schedules.get(tenantId, id)))
              throw new TwinError(
                'UNKNOWN_TRIGGER',
                `no schedule "${id}" for tenant "${tenantId}"; list them with \`twinworld schedules list --tenant ${tenantId}\``,
                { path: 'scheduleId' },
              );
            return schedules.history({
              tenantId,
              ...(id === undefined ? {} : { scheduleId: id }),
              ...(outcome === undefined ? {} : { outcome: outcome as OutcomeFilter }),
              ...(run === undefined ? {} : { runId: run }),
              ...(cursor === undefined ? {} : { cursor }),
              ...(limit === undefined ? {} : { limit }),
            });
          }
          case 'prune':
            return schedules.prune({ tenantId, before: timeOption(args, 'before') });
          case 'backfill': {
            const overlap = stringOption(args, 'overlap');
            return schedules.backfill({
              tenantId,
              scheduleId: id!,
              from: timeOption(args, 'from'),
              to: timeOption(args, 'to'),
              ...(overlap === undefined ? {} : { overlap }),
            });
          }
        }
        return undefined;
      },
      // Only add makes a world; every other subcommand works on schedules that must exist.
      { create: sub === 'add' },
    );
    if (args.json) {
      await printJson(io, answer);
      return 0;
    }
    switch (sub) {
      case 'add':
      case 'pause':
      case 'resume':
        await printSchedule(io, answer as ScheduleView);
        break;
      case 'list': {
        const { items, undecodable } = answer as {
          items: ScheduleView[];
          undecodable: { id: string; message: string }[];
        };
        if (items.length === 0 && undecodable.length === 0)
          await write(
            io.stdout,
            `no ${args.values.enabled === true ? 'enabled ' : ''}schedules for tenant "${tenantId}"\n`,
          );
        else
          await write(
            io.stdout,
            new Table(['ID', 'CRON', 'ZONE', 'ROUTINE', 'OVERLAP', 'STATE', 'REV', 'NEXT']).render(
              items.map((s) => [
                s.scheduleId,
                s.cron,
                s.timezone,
                s.routine,
                formatOverlap(s.overlap),
                s.enabled ? 'enabled' : 'paused',
                String(s.revision),
                s.enabled ? (s.nextAt ?? '-') : '-',
              ]),
            ),
          );
        for (const u of undecodable)
          await write(io.stdout, `unreadable row ${u.id}: ${u.message}\n`);
        break;
      }
      case 'inspect':
        await printInspection(io, answer as Inspection);
        break;
      case 'history': {
        const page = answer as {
          items: FireView[];
          nextCursor: string | null;
          undecodable: { id: string; message: string }[];
        };
        if (page.items.length === 0) await write(io.stdout, 'no ledger rows\n');
        else
          await write(
            io.stdout,
            new Table([
              'NOMINAL',
              'SCHEDULE',
              'OUTCOME',
              'REASON',
              'RUN',
              'LAUNCHED',
              'FINISHED',
              'NOTE',
            ]).render(page.items.map(historyRow)),
          );
        for (const u of page.undecodable)
          await write(io.stdout, `unreadable row ${u.id}: ${u.message}\n`);
        if (page.nextCursor !== null) await write(io.stdout, `more: --cursor ${page.nextCursor}\n`);
        break;
      }
      case 'prune': {
        const r = answer as { removed: number; kept: number };
        await write(
          io.stdout,
          `pruned ${r.removed} settled ledger row(s)${r.kept === 0 ? '' : `; kept ${r.kept} the scheduler still reads`}\n`,
        );
        break;
      }
      case 'backfill': {
        const r = answer as {
          occurrences: number;
          claimed: number;
          launched: number;
          skipped: number;
          buffered: number;
          alreadyClaimed: number;
          disabled: boolean;
        };
        await write(
          io.stdout,
          r.disabled
            ? 'the schedule is paused: a backfill claims nothing; resume it first\n'
            : `${r.occurrences} occurrence(s): claimed ${r.claimed} (launched ${r.launched}, skipped ${r.skipped}, buffered ${r.buffered}), already claimed ${r.alreadyClaimed}\n`,
        );
        break;
      }
    }
    return 0;
  },
};
