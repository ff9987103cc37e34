// Child process for the durable-index test: opens a world and declares no index at all, then
// makes one write per line of stdin ("<id> <plan> <dueAt>"), answering "ok <id>" after each, and
// "ready" once the twin is open. The world is a SQLite root or a postgres://…?world=NAME spec.
import { createInterface } from 'node:readline';
import { openWorldAt } from './world-at.js';

const [spec, name] = process.argv.slice(2);
const world = openWorldAt(spec!);
const twin = world.twin(name!);
await twin.head();
process.stdout.write('ready\n');
for await (const line of createInterface({ input: process.stdin })) {
  const [id, plan, dueAt] = line.trim().split(' ');
  if (id === undefined || id === '') continue;
  await twin.applyWrite({
    operation: 'customer.upsert',
    subjectType: 'customer',
    subjectId: id,
    fields: { plan: plan!, dueAt: dueAt! },
  });
  process.stdout.write(`ok ${id}\n`);
}
await world.close();
