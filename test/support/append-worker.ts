// Child process for the import race tests: appends to one twin for as long as it lives, printing
// "ready" after its first write. The world is a SQLite root or a postgres://…?world=NAME spec.
import { openWorldAt } from './world-at.js';

const [root, name] = process.argv.slice(2);
const world = openWorldAt(root!);
const twin = world.twin(name!);
for (let i = 0; ; i++) {
  await twin.applyWrite({
    operation: 'note.add',
    subjectType: 'note',
    subjectId: `n${i % 100}`,
    fields: { i },
  });
  if (i === 0) process.stdout.write('ready\n');
  // A breath between writes: the importer must get the lock too.
  if (i % 10 === 0) await new Promise((r) => setTimeout(r, 1));
}
