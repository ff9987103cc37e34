// Colour on a terminal: only when stdout is a TTY and NO_COLOR (https://no-color.org) is unset or
// empty; never in pipes, files or --json.
import type { CliIO } from './command.js';

const CODES = { red: 31, green: 32, yellow: 33, blue: 34, dim: 2, bold: 1 } as const;
export type Colour = keyof typeof CODES;

export function colourOn(io: CliIO, json = false): boolean {
  const env = io.env ?? process.env;
  return !json && io.isTTY.stdout && (env.NO_COLOR === undefined || env.NO_COLOR === '');
}

/** A painter: `paint('green', text)` is coloured when colour is on, else the text as given. */
export function painter(on: boolean): (colour: Colour, text: string) => string {
  return on ? (colour, text) => `\x1b[${CODES[colour]}m${text}\x1b[0m` : (_c, text) => text;
}

/** The colour of an outcome or state word. */
export function stateColour(state: string | undefined): Colour {
  if (state === 'succeeded' || state === 'triggered' || state === 'completed') return 'green';
  if (state === 'failed' || state === 'refused' || state === 'unknown') return 'red';
  if (state === 'retrying' || state === 'queued' || state === 'sending') return 'yellow';
  return 'dim';
}
