// `import` takes one twin's log. A file holding several twins' logs (a walk's saved log, which
// `replay` reads whole) is refused before the world opens, so nothing is imported and no root is
// made; from stdin, which cannot be read twice, the import itself stops at the first line of
// another twin (world/import-log.ts).
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

/** The first line that names another twin than the lines before it, if any. */
async function twinMix(lines: AsyncIterable<string>): Promise<TwinMix | undefined> {
  let first: string | undefined;
  let no = 0;
  for await (const text of lines) {
    no++;
    const twin = text.trim() === '' ? undefined : twinOf(text);
    if (twin === undefined) continue;
    first ??= twin;
    if (twin !== first) return { line: no, twin, first };
  }
  return undefined;
}

/** Refuses a file of several twins' logs, naming the line, both twins and what to do instead. */
export async function checkOneTwin(
  file: string,
  target: string,
  lines: AsyncIterable<string>,
): Promise<void> {
  const mix = await twinMix(lines);
  if (mix === undefined) return;
  throw new TwinError(
    'IMPORT_MALFORMED_LINE',
    `import into twin "${target}" stopped at line ${mix.line}: it is an entry of twin "${mix.twin}", but the lines before it are of twin "${mix.first}" — ${file} holds the logs of several twins (as a walk's saved log does), and import takes one twin's log; nothing was imported. Export one twin at the source (twinworld export ${mix.first} --out ${mix.first}.jsonl), or check the whole file with \`twinworld replay\``,
    {
      path: `line ${mix.line}.twin`,
      details: { line: mix.line, twin: mix.twin, before: mix.first },
    },
  );
}
