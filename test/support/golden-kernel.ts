// The two kernel golden logs: small seeded workloads on a virtual clock. `npm run fixtures`
// rewrites them; the fixtures test replays the committed files and checks their hashes.
import { VirtualClock } from '../../src/world/clock.js';
import { openWorld } from '../../src/world/world.js';
import type { Twin } from '../../src/world/twin.js';
import { collect } from './backends.js';

export interface GoldenLog {
  readonly name: string;
  readonly lines: string[];
  readonly hash: string;
  readonly entries: number;
}

async function record(
  name: string,
  seed: string,
  drive: (twin: Twin, clock: VirtualClock) => Promise<void>,
): Promise<GoldenLog> {
  const clock = new VirtualClock('2026-01-15T09:00:00.000Z');
  const world = openWorld({ root: ':memory:', clock, seed });
  const twin = world.twin(name);
  await drive(twin, clock);
  const lines = await collect(twin.exportLines());
  const out = { name, lines, hash: await twin.hash(), entries: lines.length };
  await world.close();
  return out;
}

export function kernelGoldenLogs(): Promise<GoldenLog[]> {
  return Promise.all([
    record('crm', 'golden-crm', async (twin, clock) => {
      for (const [id, name] of [
        ['cus_ada', 'Ada'],
        ['cus_bob', 'Bob'],
        ['cus_cy', 'Cy'],
      ] as const) {
        await twin.applyWrite({
          operation: 'customer.create',
          subjectType: 'customer',
          subjectId: id,
          fields: { name, plan: 'free', tags: [] },
        });
        await clock.advance(60_000);
      }
      await twin.applyWrite({
        operation: 'customer.update',
        subjectType: 'customer',
        subjectId: 'cus_ada',
        fields: { plan: 'pro', tags: ['vip'] },
        actor: 'operator',
      });
      await clock.advance(3600_000);
      await twin.applyWrite({
        operation: 'customer.delete',
        subjectType: 'customer',
        subjectId: 'cus_bob',
        delete: true,
      });
      await twin.applyWrite({
        operation: 'customer.update',
        subjectType: 'customer',
        subjectId: 'cus_cy',
        fields: { address: { city: 'Bergen', zip: null } },
      });
    }),
    record('billing', 'golden-billing', async (twin, clock) => {
      await twin.applyWrite({
        operation: 'customer.create',
        subjectType: 'customer',
        subjectId: 'cus_1',
        fields: { balance: 0 },
      });
      await twin.applyAtomic(() => [
        {
          operation: 'invoice.finalize',
          subjectType: 'invoice',
          subjectId: 'in_1',
          fields: { customer: 'cus_1', total: 4200, status: 'open' },
          projection: {
            creates: [
              { type: 'invoice_line', id: 'il_1', fields: { invoice: 'in_1', amount: 4000 } },
              { type: 'invoice_line', id: 'il_2', fields: { invoice: 'in_1', amount: 200 } },
            ],
            updates: [{ type: 'customer', id: 'cus_1', fields: { balance: 4200 } }],
          },
        },
      ]);
      await clock.advance(86_400_000);
      await twin.applyWrite({
        operation: 'invoice.pay',
        subjectType: 'invoice',
        subjectId: 'in_1',
        fields: { status: 'paid' },
        projection: {
          updates: [{ type: 'customer', id: 'cus_1', fields: { balance: 0 } }],
          deletes: [{ type: 'invoice_line', id: 'il_2' }],
        },
      });
    }),
  ]);
}
