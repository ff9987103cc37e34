// Child process for the cross-process determinism test: runs one golden walk (or all of them)
// and prints its exported log, hashes and report — minus the wall-clock part — as one JSON line.
import { goldenWalks } from './golden-walks.js';

const only = process.argv[2];
const out: Record<string, unknown> = {};
for (const golden of goldenWalks) {
  if (only !== undefined && golden.name !== only) continue;
  const walk = await golden.run();
  const { wall: _wall, ...report } = await walk.report();
  out[golden.name] = {
    log: (await walk.exportLog()).join('\n'),
    hashes: await walk.hashes(),
    report,
  };
  await walk.close();
}
process.stdout.write(`${JSON.stringify(out)}\n`);
