// The trigger layer's shared defaults, kept below the engine so that sources, schedules and
// deferred dispatch can name them without importing the engine.
export const DEFAULT_TRIGGER_TWIN = 'triggers';
/** A routine result is stored on its record: it must fit comfortably in one write. */
export const MAX_RESULT_BYTES = 256 * 1024;
