// Where a runner finds its routines: the port (look a routine up by id, list the ids) and the
// registry the built-in runners use by default. A host plugs in its own store (routines loaded
// from a plugin folder, a database of definitions) by implementing the two methods.
import { describeValue, TwinError } from '../errors.js';

export interface RoutineStore<R> {
  /** The routine named `routineId`, or undefined when the store has none by that name. */
  get(routineId: string): R | undefined;
  /** Every routine id the store holds, for listings and for refusing a route to nothing. */
  ids(): readonly string[];
}

const ROUTINE_ID = /^[A-Za-z0-9][A-Za-z0-9_.:\-/]{0,127}$/;

function checkRoutineId(routineId: unknown): asserts routineId is string {
  if (typeof routineId !== 'string' || !ROUTINE_ID.test(routineId))
    throw new TwinError(
      'INVALID_ARGUMENT',
      `routineId ${JSON.stringify(routineId)} is not valid; use 1–128 letters, digits and _ . : - /`,
      { path: 'routineId' },
    );
}

/** The refusal of a run whose routine the store does not hold, saying how to add it. */
export function unknownRoutine(routineId: string, howToRegister: string): TwinError {
  return new TwinError(
    'UNKNOWN_ROUTINE',
    `no routine "${routineId}" is registered with this runner; ${howToRegister}`,
    { path: 'routineId', details: { routineId } },
  );
}

/** An in-memory store filled by `register`: each id once, each routine a function. */
export class RoutineRegistry<R> implements RoutineStore<R> {
  private readonly routines = new Map<string, R>();

  constructor(...given: []) {
    // The constructor takes nothing: routines handed to it ({fulfil: fn}) were dropped unread.
    const args: readonly unknown[] = given;
    if (args.length > 0)
      throw new TwinError(
        'INVALID_ARGUMENT',
        `new RoutineRegistry() takes no arguments, got ${describeValue(args[0])}; add routines with .register(routineId, fn)`,
        { path: 'routines' },
      );
  }

  register(routineId: string, routine: R): this {
    checkRoutineId(routineId);
    if (typeof routine !== 'function')
      throw new TwinError(
        'INVALID_ARGUMENT',
        `routine "${routineId}" must be a function (input, context) => result`,
        { path: 'fn' },
      );
    if (this.routines.has(routineId))
      throw new TwinError('INVALID_ARGUMENT', `routine "${routineId}" is already registered`, {
        path: 'routineId',
      });
    this.routines.set(routineId, routine);
    return this;
  }

  get(routineId: string): R | undefined {
    return this.routines.get(routineId);
  }

  ids(): readonly string[] {
    return [...this.routines.keys()];
  }
}
