// `import` takes one twin's log. A file holding several twins' logs (a walk's saved log, which
// `replay` reads whole) was imported as if it were one: the first twin's lines went in under the
// target's name, then the next twin's seq 1 stopped it as a "changed" line. Here the lines are
// watched for the first that names another twin, so the import can be refused as what it is.
import { TwinError } from '../errors.js';

/** Where the lines stopped being one twin's: the line, its twin, and the twin of those before it. */
interface TwinMix {
  readonly line: number;
  readonly twin: string;
  readonly first: string;
}

/** The `twin` a line names, when it is JSON naming one (anything else is the import's to refuse). */
function twinOf(text: string): string | undefined {
  try {
    const parsed = JSON.parse(text) as { twin?: unknown } | null;
    return typeof parsed?.twin === 'string' ? parsed.twin : undefined;
  } catch {
    return undefined;
  }
}

export interface OneTwinLines {
  /** The lines, ending before the first that names another twin. */
  readonly lines: AsyncIterable<string>;
  /** Where they stopped being one twin's, once iterated that far. */
  mixed(): TwinMix | undefined;
}

export function oneTwinLines(source: AsyncIterable<string>): OneTwinLines {
  let mix: TwinMix | undefined;
  async function* lines(): AsyncGenerator<string> {
    let first: string | undefined;
    let no = 0;
    for await (const text of source) {
      no++;
      const twin = text.trim() === '' ? undefined : twinOf(text);
      if (twin !== undefined) {
        first ??= twin;
        if (twin !== first) {
          mix = { line: no, twin, first };
          return;
        }
      }
      yield text;
    }
  }
  return { lines: lines(), mixed: () => mix };
}

/** The refusal for a file of several twins' logs; `appended` when lines before it went in. */
export function severalTwins(
  file: string,
  target: string,
  mix: TwinMix,
  appended?: number,
): TwinError {
  const kept =
    appended === undefined
      ? 'nothing was imported'
      : `lines before it were kept (${appended} appended)`;
  return new TwinError(
    'IMPORT_MALFORMED_LINE',
    `import into twin "${target}" stopped at line ${mix.line}: it is an entry of twin "${mix.twin}", but the lines before it are of twin "${mix.first}" — ${file === '-' ? 'the input' : file} holds the logs of several twins (as a walk's saved log does), and import takes one twin's log; ${kept}. Export one twin at the source (twinworld export ${mix.first} --out ${mix.first}.jsonl), or check the whole file with \`twinworld replay\``,
    {
      path: `line ${mix.line}.twin`,
      details: {
        line: mix.line,
        twin: mix.twin,
        before: mix.first,
        ...(appended === undefined ? {} : { appended }),
      },
    },
  );
}
