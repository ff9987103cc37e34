// Regenerates the golden walks: runs each walk in test/support/golden-walks.ts and saves it as
// fixtures/<name>.jsonl + fixtures/<name>.json. Run after a deliberate change to a walk or pack:
//   npx tsc -p tsconfig.build.json && node dist/test/support/write-walk-fixtures.js [dir]
import { goldenWalks } from './golden-walks.js';

const dir = process.argv[2] ?? 'fixtures';
for (const golden of goldenWalks) {
  const walk = await golden.run();
  const { jsonl } = await walk.saveFixture(golden.name, { dir });
  const hashes = await walk.hashes();
  await walk.close();
  process.stdout.write(
    `${jsonl}  ${Object.entries(hashes)
      .map(([t, h]) => `${t} ${h.slice(0, 19)}…`)
      .join('  ')}\n`,
  );
}
