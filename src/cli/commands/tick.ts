// `twinworld tick`: fires the calendar occurrences that are due now (or at --now) and records the
// ones a catch-up policy leaves out; run it from cron or a scheduler of your choice.
import { TwinError } from '../../errors.js';
import type { CalendarSource } from '../../triggers/calendar/calendar-source.js';
import type { TickAnswer } from '../../triggers/calendar/occurrence-record.js';
import { BY_TENANT_INDEX, SUBSCRIPTION_TYPE } from '../../triggers/calendar/subscription.js';
import { DEFAULT_TRIGGER_TWIN } from '../../triggers/defaults.js';
import { checkTenantId } from '../../triggers/envelope.js';
import { timeFlag } from '../flags.js';
import { DEFAULT_TENANT, loadServeConfig } from '../../host/serve/config.js';
import { RECORD_ROUTINE, recordRoutine } from '../../triggers/routines/record-routine.js';
import { createTriggerRuntime } from '../../host/runtime/runtime.js';
import { startTriggerRuntime } from '../../host/serve/serve.js';
import { RealClock, VirtualClock } from '../../world/clock.js';
import type { World } from '../../world/world.js';
import { stringOption, type Command } from '../command.js';
import { printJson, write } from '../output.js';
import { openStoreWorld, storeMayHoldWorld } from '../store.js';

/** Without a configuration: the stored subscriptions of one tenant, each routed to the record routine. */
async function storedRuntime(
  world: World,
  tenant: string,
): Promise<{ calendar: CalendarSource; stop: () => Promise<void>; subscriptions: number }> {
  const { engine, calendar } = await createTriggerRuntime({
    world,
    routines: { [RECORD_ROUTINE]: recordRoutine(DEFAULT_TRIGGER_TWIN) },
  });
  const subs = await engine.twin.lookup(SUBSCRIPTION_TYPE, BY_TENANT_INDEX, tenant);
  for (const sub of subs) {
    const triggerId = String(sub.fields.triggerId);
    if (!engine.hasRoute(triggerId))
      engine.registerRoute({ triggerId, routineId: RECORD_ROUTINE, buildInput: (e) => e.payload });
  }
  return { calendar, stop: () => engine.stop(), subscriptions: subs.length };
}

/** Missed occurrences printed one per line; older ones are counted. */
const MISSED_SHOWN = 10;

/** Said when a tick without --config finds nothing to tick: schedules are not calendars. */
function noCalendars(tenant: string): string {
  return `no calendar subscriptions for tenant "${tenant}": store them with \`twinworld tick --config FILE\` (or serve --config); schedules (\`twinworld schedules\`) are run by \`twinworld work\`, not by tick\n`;
}

export const tickCommand: Command = {
  name: 'tick',
  summary: 'Fire the calendar occurrences that are due',
  usage: 'tick [--config FILE] [--tenant T] [--now ISO] [--root DIR | --store URL] [--json]',
  description: [
    'Fires every calendar occurrence due since the last tick, once (a repeated or concurrent tick',
    'never fires one twice), and records those the catch-up policy leaves out as missed. With',
    '--config, the calendars of the configuration (stored first if new or changed) for each of its',
    'tenants; without, the stored subscriptions of --tenant (default "default"), each routed to the',
    'built-in record routine. Exit 1 when an occurrence was refused or its routine did not finish.',
  ].join('\n'),
  arguments: [],
  positionals: { min: 0, max: 0 },
  options: {
    config: {
      type: 'string',
      value: { kind: 'text', nonEmpty: true },
      short: 'c',
      arg: 'FILE',
      description: 'the JSON configuration `twinworld serve` uses',
    },
    tenant: {
      type: 'string',
      value: { kind: 'check', check: (raw) => checkTenantId(raw, 'tenant', 'INVALID_ARGUMENT') },
      short: 't',
      arg: 'T',
      description: 'only tenant T (default: every configured tenant, or "default")',
    },
    now: {
      type: 'string',
      value: { kind: 'time' },
      arg: 'ISO',
      description: 'tick as of this time instead of now, e.g. 2026-03-01T03:00:00Z',
    },
  },
  jsonHelp: 'print one JSON array of tick answers {tenantId, now, fired: [...], missed: [...]}',
  async run(args, io) {
    const file = stringOption(args, 'config');
    const tenant = stringOption(args, 'tenant');
    const nowText = timeFlag(args.values, 'now');
    const now = nowText === undefined ? undefined : Date.parse(nowText);
    const config =
      file === undefined ? undefined : loadServeConfig(file, process.env, { checkSecrets: false });
    if (
      config !== undefined &&
      tenant !== undefined &&
      !config.tenants.some((t) => t.id === tenant)
    ) {
      throw new TwinError(
        'INVALID_ARGUMENT',
        `tenant "${tenant}" is not in ${file}; configured: ${config.tenants.map((t) => t.id).join(', ')}`,
        { path: 'tenant' },
      );
    }
    // Without a configuration, tick only reads what the world holds: a missing root is refused.
    if (config === undefined && !storeMayHoldWorld(args.store))
      throw new TwinError(
        'ROOT_NOT_FOUND',
        `there is no world at ${args.store.label}: the folder does not exist; check --root, or give --config FILE to tick configured calendars`,
        { path: 'root' },
      );
    // --now runs the whole tick on a clock stopped at that instant: occurrences, records and a
    // newly stored subscription's cursor all agree on what "now" is.
    const world = await openStoreWorld(args.store, {
      clock: now === undefined ? new RealClock() : new VirtualClock(now),
    });
    let empty = false;
    const answers: TickAnswer[] = await (async () => {
      const tenants =
        config === undefined
          ? [tenant ?? DEFAULT_TENANT]
          : config.tenants
              .filter((t) => t.calendars.length > 0 && (tenant === undefined || t.id === tenant))
              .map((t) => t.id);
      const runtime =
        config === undefined
          ? await storedRuntime(world, tenants[0]!)
          : await startTriggerRuntime(world, config, { env: process.env });
      const calendar = runtime.calendar;
      if ('subscriptions' in runtime) empty = runtime.subscriptions === 0;
      const out: TickAnswer[] = [];
      try {
        for (const t of tenants) out.push(await calendar.tick(t, now));
      } finally {
        await ('stop' in runtime ? runtime.stop() : runtime.engine.stop());
      }
      return out;
    })().finally(() => world.close());
    if (args.json) await printJson(io, answers);
    else if (empty) await write(io.stdout, noCalendars(answers[0]!.tenantId));
    else {
      for (const a of answers) {
        await write(
          io.stdout,
          `tenant ${a.tenantId} at ${a.now}: fired ${a.fired.length}, missed ${a.missed.length}\n`,
        );
        for (const f of a.fired)
          await write(
            io.stdout,
            `  fired   ${f.triggerId} #${f.number}  ${f.nominalAt}  (${f.wallTime}${f.dstRule === null ? '' : `, ${f.dstRule}`}${f.catchUp ? ', catch-up' : ''})  ${f.status}${f.error === null ? '' : ` ${f.error}`}\n`,
          );
        // A long downtime can leave hundreds missed: the newest are shown, the count says the rest.
        const shown = a.missed.slice(-MISSED_SHOWN);
        if (a.missed.length > shown.length)
          await write(
            io.stdout,
            `  missed  ${a.missed.length - shown.length} more before these (--json lists every one)\n`,
          );
        for (const m of shown)
          await write(
            io.stdout,
            `  missed  ${m.triggerId} #${m.number}  ${m.nominalAt}  (${m.reason})\n`,
          );
      }
    }
    return answers.some((a) => a.fired.some((f) => f.status === 'failed' || f.status === 'refused'))
      ? 1
      : 0;
  },
};
