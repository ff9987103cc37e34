// Renders docs/errors.md from src/error-catalog.ts. `npm run docs:errors` writes the page;
// test/docs.test.ts renders it again and fails when the committed page differs.
import { ERROR_CATALOG, type ErrorArea, type ErrorEntry } from '../../src/error-catalog.js';

const AREAS: readonly ErrorArea[] = [
  'writes and logs',
  'world and store',
  'work and delivery',
  'triggers and ingress',
  'configuration and CLI',
];

export function renderErrorsDoc(): string {
  const entries = Object.entries(ERROR_CATALOG) as [string, ErrorEntry][];
  const out: string[] = [
    '# Errors',
    '',
    '<!-- Generated from src/error-catalog.ts by `npm run docs:errors`; do not edit by hand. -->',
    '',
    'Every error the kernel raises is a `TwinError` with a stable `code`, a message saying what was',
    'wrong and how to fix it, and, where there is one, the `path` of the offending value. Its JSON',
    'form (what the CLI prints with `--json` and the HTTP host answers) is',
    '`{"error": CODE, "message": …, "path"?: …, "details"?: …}`. A refused write appends nothing.',
    '',
    'The status is what the HTTP host answers when the error ends a request. Codes that are not a',
    'refusal of the request itself answer 500, still with their code and message; anything that is',
    'not a `TwinError` answers an opaque 500 (`INTERNAL`), its text never sent.',
    '',
  ];
  for (const area of AREAS) {
    out.push(`## ${area[0]!.toUpperCase()}${area.slice(1)}`, '');
    out.push('| code | status | what it means | how to fix it |', '|---|---|---|---|');
    for (const [code, e] of entries
      .filter(([, e]) => e.area === area)
      .sort(([a], [b]) => (a < b ? -1 : 1)))
      out.push(`| \`${code}\` | ${e.status} | ${cell(e.means)} | ${cell(e.fix)} |`);
    out.push('');
  }
  return out.join('\n');
}

function cell(text: string): string {
  return text.replaceAll('|', '\\|');
}

if (process.argv[1]?.endsWith('errors-doc.js')) {
  const { writeFileSync } = await import('node:fs');
  writeFileSync('docs/errors.md', renderErrorsDoc());
  process.stdout.write(`docs/errors.md  ${Object.keys(ERROR_CATALOG).length} codes\n`);
}
