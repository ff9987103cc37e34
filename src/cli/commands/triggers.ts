// `twinworld triggers`: the trigger history — every record and receipt (duplicates, in-progress
// answers, refusals), newest first, with the answer each got and the provider it came from.
import {
  listTriggerRecords,
  type TriggerListing,
  type UndecodableRow,
} from '../../triggers/list.js';
import { pruneTriggerHistory } from '../../triggers/retention.js';
import { countOption, stringOption, withWorld, type Command } from '../command.js';
import { printJson, Table, truncate, write } from '../output.js';
import { checkTenantId } from '../../triggers/envelope.js';
import { DEFAULT_TRIGGER_TWIN } from '../../triggers/defaults.js';
import { readDispatch, type DispatchState } from '../../triggers/deferred/dispatch-record.js';
import type { World } from '../../world/world.js';

/** A listed row, and for a deferred record the state its dispatch is in now. */
type Row = TriggerListing & { readonly dispatchState?: DispatchState };

/**
 * A record stays `received` once its dispatch is cancelled or expires (it never ran), so its
 * status alone would say `deferred` for ever; the dispatch says what became of it.
 */
async function withDispatchStates(world: World, rows: TriggerListing[]): Promise<Row[]> {
  if (!rows.some((r) => r.dispatchId !== null)) return rows;
  const twin = world.twin(DEFAULT_TRIGGER_TWIN);
  return twin.read((view) =>
    rows.map((r) => {
      if (r.status !== 'deferred' || r.dispatchId === null) return r;
      const d = readDispatch(view, r.dispatchId);
      return d === undefined ? r : { ...r, dispatchState: d.state };
    }),
  );
}

function codes(r: Row): string {
  // Later deliveries of a key (duplicates, replays, resends while it ran) have no row of their own.
  const repeats = r.kind === 'record' && r.count > 1 ? `${r.count} deliveries` : '';
  const code = r.dispatchState !== undefined ? `dispatch ${r.dispatchState}` : (r.code ?? '');
  if (r.byCode === null) return [code, repeats].filter((t) => t !== '').join(', ');
  return Object.entries(r.byCode)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([code, n]) => `${code}×${n}`)
    .join(' ');
}

function row(r: Row): string[] {
  return [
    String(r.seq),
    r.receivedAt,
    r.tenantId,
    `${r.sourceKind ?? '-'}/${r.provider ?? '-'}`,
    r.triggerId ?? '-',
    r.status,
    codes(r),
    truncate(r.dedupeKey ?? (r.kind === 'refusals' ? `(${r.count} in window)` : '-'), 60),
  ];
}

export const triggersCommand: Command = {
  name: 'triggers',
  summary: 'List trigger records with their answer and provider',
  usage:
    'triggers [--tenant T] [--limit N] [--root DIR | --store URL] [--json]\n       twinworld triggers --prune DAYS [--root DIR | --store URL] [--json]',
  description: [
    'Lists what the trigger ingress decided, newest first: one row per event key (triggered,',
    'filtered, deferred, in_progress, failed), its later deliveries (duplicates, replays, resends',
    'while it ran) counted on that row ("3 deliveries"); one per delivery refused for its key',
    '(PAYLOAD_CONFLICT, …); and one per source and minute of refused packets, counted by code',
    '(BAD_SIGNATURE×3 STALE_TIMESTAMP×1). A key a deferred dispatch took in is `deferred`, its CODE',
    'the state of that dispatch (dispatch queued, dispatch cancelled, …).',
    'With --prune DAYS, removes settled history older than DAYS days instead (records that ended',
    'triggered or filtered, receipts, closed refusal windows, expired replay guards) with one write',
    'per batch; the log keeps every entry. Records still processing or failed are never pruned.',
  ].join('\n'),
  arguments: [],
  positionals: { min: 0, max: 0 },
  options: {
    tenant: {
      type: 'string',
      value: { kind: 'check', check: (raw) => checkTenantId(raw, 'tenant', 'INVALID_ARGUMENT') },
      short: 't',
      arg: 'T',
      description: 'only tenant T',
    },
    limit: {
      type: 'string',
      value: { kind: 'count', min: 1 },
      short: 'n',
      arg: 'N',
      description: 'at most N rows (default 100)',
    },
    prune: {
      type: 'string',
      value: { kind: 'count', min: 1 },
      arg: 'DAYS',
      description: 'prune settled trigger history older than DAYS days',
    },
  },
  jsonHelp:
    'print one JSON array of {kind, id, seq, receivedAt, tenantId, scopeId, sourceKind, provider, triggerId, dedupeKey, status, code, attempts, count, byCode, dispatchId}, a deferred record also with its dispatchState',
  async run(args, io) {
    const days = countOption(args, 'prune');
    if (days !== undefined) {
      const report = await withWorld(
        args.store,
        (world) => pruneTriggerHistory(world, { olderThanMs: days * 86_400_000 }),
        { create: false },
      );
      if (args.json) await printJson(io, report);
      else
        await write(
          io.stdout,
          `pruned ${report.records} record(s), ${report.receipts} receipt(s), ${report.refusals} refusal window(s), ${report.guards} replay guard(s); retention has reached seq ${report.cursor}\n`,
        );
      return 0;
    }
    const tenant = stringOption(args, 'tenant');
    const limit = countOption(args, 'limit') ?? 100;
    // A missing root is refused (ROOT_NOT_FOUND), never created nor listed as empty.
    const undecodable: UndecodableRow[] = [];
    const rows = await withWorld(
      args.store,
      async (world) =>
        withDispatchStates(
          world,
          await listTriggerRecords(world, {
            ...(tenant === undefined ? {} : { tenant }),
            limit,
            onUndecodable: (u) => undecodable.push(u),
          }),
        ),
      { create: false },
    );
    // A row nobody can read is named, with why, and the listing goes on without it.
    for (const u of undecodable)
      await write(io.stderr, `skipped ${u.type} ${u.id}: cannot be read (${u.reason})\n`);
    const shown = rows;
    if (args.json) await printJson(io, shown);
    else if (shown.length === 0)
      await write(
        io.stdout,
        `no trigger records${tenant === undefined ? '' : ` for tenant "${tenant}"`}\n`,
      );
    else
      await write(
        io.stdout,
        new Table([
          'SEQ',
          'RECEIVED',
          'TENANT',
          'SOURCE',
          'TRIGGER',
          'STATUS',
          'CODE',
          'KEY',
        ]).render(shown.map(row)),
      );
    return 0;
  },
};
