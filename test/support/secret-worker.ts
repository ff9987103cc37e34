// Child process for the secret store's concurrency tests: sets `count` refs of its own, rotates
// one shared ref `count` times, or sets forever (until it is killed), through world.secrets.
import { openWorld } from '../../src/world/world.js';

const [root, mode, label, countText] = process.argv.slice(2);
const world = openWorld({ root: root! });
const count = Number(countText);
if (mode === 'set') {
  for (let i = 0; i < count; i++) await world.secrets.set(`${label}/${i}`, `secret-${label}-${i}`);
} else if (mode === 'rotate') {
  for (let i = 0; i < count; i++)
    await world.secrets.rotate('shared', `rotated-${label}-${i}`, 1_000, 1e12);
} else if (mode === 'forever') {
  for (let i = 0; ; i++) {
    await world.secrets.set(`${label}/${i % 50}`, `secret-${label}-${i}`);
    // every ref has been set once: the parent may kill at any moment from here on
    if (i === 50) process.stdout.write('ready\n');
  }
}
await world.close();
