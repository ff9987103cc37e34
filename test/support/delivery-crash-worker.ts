// Child process for the delivery crash test: writes customers (each fans out to one delivery)
// and dispatches them to a loopback receiver, printing each committed write, until killed. The
// world is a SQLite root or a postgres://…?world=NAME spec (./world-at.ts).
import { openWorldAt } from './world-at.js';
import { registerPack } from '../../src/events/pack-registry.js';
import { Dispatcher } from '../../src/events/dispatcher.js';
import { ACME_SECRET, acmePack } from './acme-pack.js';

const [root, receiverUrl, countText] = process.argv.slice(2);
const world = openWorldAt(root!);
const twin = registerPack(world, acmePack());
// A short lease, so the parent sees the killed sender's claims lapse within the test.
const dispatcher = new Dispatcher(world, { concurrency: 16, leaseMs: 1_000 });
await world.secrets.set('ep', ACME_SECRET);
if ((await twin.get('endpoint', 'ep')) === undefined) {
  await twin.applyWrite({
    operation: 'endpoint.create',
    subjectType: 'endpoint',
    subjectId: 'ep',
    fields: {
      url: `${receiverUrl}/hooks`,
      secret_ref: 'ep',
      events: ['customer.created'],
      status: 'enabled',
    },
  });
}
for (let i = 0; i < Number(countText); i++) {
  await twin.applyWrite({
    operation: 'customer.create',
    subjectType: 'customer',
    subjectId: `cus_${i}`,
    fields: { i },
  });
  process.stdout.write(`w ${i}\n`);
  // let dispatches interleave with writes, as in a live server
  await new Promise((r) => setImmediate(r));
}
await dispatcher.idle();
process.stdout.write('done\n');
await world.close();
