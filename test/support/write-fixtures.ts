// Rewrites the committed golden logs (fixtures/*.jsonl and their *.json hash files).
import { writeFileSync } from 'node:fs';
import { kernelGoldenLogs } from './golden-kernel.js';

for (const log of await kernelGoldenLogs()) {
  writeFileSync(`fixtures/${log.name}.jsonl`, `${log.lines.join('\n')}\n`);
  writeFileSync(
    `fixtures/${log.name}.json`,
    `${JSON.stringify({ twin: log.name, entries: log.entries, hashes: { [log.name]: log.hash } }, null, 2)}\n`,
  );
  process.stdout.write(`fixtures/${log.name}.jsonl  ${log.entries} entries  ${log.hash}\n`);
}
