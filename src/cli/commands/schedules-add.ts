// What `twinworld schedules add` checks before it opens a world — the routine the workers run, and
// the `wait` routine's input, which would otherwise fail at every occurrence — and how it says that
// the id is taken.
import { TwinError } from '../../errors.js';
import { BUILT_IN_ROUTINES } from '../../host/runtime/schedule-host.js';
import type { JsonValue } from '../../log/json-value.js';
import { WAIT_ROUTINE, waitMs } from '../../triggers/routines/wait-routine.js';
import { countOption, stringOption, UsageError, type ParsedArgs } from '../command.js';
import { jsonFlag } from '../flags.js';

interface AddFlags {
  readonly cron: string;
  readonly input: JsonValue;
  readonly enabled: boolean;
  readonly timezone?: string;
  readonly routine?: string;
  readonly overlap?: string;
  readonly catchUp?: string;
  /** The revision the change is made against; absent: a new schedule. */
  readonly revision?: number;
}

/** The declaration `add` makes from its flags, or the refusal of what no worker could run. */
export function readAddFlags(args: ParsedArgs): AddFlags {
  const cron = stringOption(args, 'cron');
  if (cron === undefined) throw new UsageError('schedules add needs --cron EXPR');
  const input = jsonFlag(args.values, 'input', '{"ms": 2500}') ?? null;
  const routine = stringOption(args, 'routine');
  if (routine !== undefined && !BUILT_IN_ROUTINES.includes(routine))
    throw new TwinError(
      'UNKNOWN_ROUTINE',
      `no routine "${routine}" is registered with the workers that run schedules (\`twinworld work\`, \`serve\`); they run ${BUILT_IN_ROUTINES.join(', ')}`,
      { path: 'routine', details: { registered: [...BUILT_IN_ROUTINES] } },
    );
  if (routine === WAIT_ROUTINE) {
    try {
      waitMs(input);
    } catch (error) {
      throw new TwinError(
        'INVALID_ARGUMENT',
        `${(error as Error).message}; pass it with --input '{"ms": 2500}'`,
        { path: 'input' },
      );
    }
  }
  const timezone = stringOption(args, 'tz');
  const overlap = stringOption(args, 'overlap');
  const catchUp = stringOption(args, 'catch-up');
  const revision = countOption(args, 'revision');
  return {
    cron,
    input,
    enabled: args.values.paused !== true,
    ...(timezone === undefined ? {} : { timezone }),
    ...(routine === undefined ? {} : { routine }),
    ...(overlap === undefined ? {} : { overlap }),
    ...(catchUp === undefined ? {} : { catchUp }),
    ...(revision === undefined ? {} : { revision }),
  };
}

/**
 * `add` without --revision declares a new schedule; when the id is taken, the kernel's "made as a
 * new schedule" refusal is said as the flag that changes it.
 */
export function existsAlready(error: unknown, id: string): unknown {
  if (!(error instanceof TwinError) || error.code !== 'REVISION_MISMATCH') return error;
  const revision = (error.details as { revision?: unknown } | undefined)?.revision;
  if (typeof revision !== 'number' || revision === 0) return error;
  return new TwinError(
    'REVISION_MISMATCH',
    `schedule "${id}" exists already (revision ${revision}); to change it, add it again with --revision ${revision}`,
    { path: 'revision', details: error.details },
  );
}
