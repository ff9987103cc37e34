// Deliveries as work for the worker (docs/work.md). A record's due time says when someone must act:
// queued → at once, retrying → when its retry falls due, sending → when its sender's lease lapses.
// One kind per pack, so the worker's reports name the pack; the dispatcher does the claiming, a batch
// of due records per section (Dispatcher.claimDue).
import { dueIndexWork } from '../work/due-index-work.js';
import type { WorkKind, WorkReport } from '../work/work-kind.js';
import type { AttemptResult, Dispatcher } from './dispatcher.js';
import { packTwinName, registeredPacks } from './pack-registry.js';

/** A work kind per registered pack that declares events. */
export function deliveryWork(dispatcher: Dispatcher): WorkKind[] {
  const kinds: WorkKind[] = [];
  for (const pack of registeredPacks(dispatcher.world).values()) {
    const decl = pack.events;
    if (decl === undefined) continue;
    const twin = dispatcher.world.twin(packTwinName(pack));
    kinds.push(
      dueIndexWork({
        name: `delivery:${pack.name}`,
        twin,
        sources: [
          {
            kind: { type: decl.recordType },
            item: (r) => ({
              id: r.id,
              dueAt: String(r.fields.dueAt),
              state: String(r.fields.state),
            }),
          },
        ],
        // A `sending` record is a send in flight (here or elsewhere) until its sender's lease lapses.
        held: { kind: { type: decl.recordType }, states: ['sending'] },
        take: async (_nowMs, limit, busy, sendSlot) =>
          (await dispatcher.claimDue(pack.name, limit, busy, sendSlot)).map((t) => ({
            item: { id: t.id, dueAt: t.dueAt, state: t.state },
            done: t.done.then((result) => report(pack.name, t.id, result)),
            ...(t.freed === undefined ? {} : { freed: t.freed }),
          })),
        run: async (item) =>
          report(pack.name, item.id, await dispatcher.runDue(pack.name, item.id, item.state)),
      }),
    );
  }
  return kinds;
}

function report(
  pack: string,
  id: string,
  result: AttemptResult | 'taken_over' | undefined,
): WorkReport | undefined {
  if (result === undefined) return undefined;
  if (result === 'taken_over')
    return { kind: `delivery:${pack}`, id, outcome: 'unknown', detail: 'lease_expired' };
  return {
    kind: `delivery:${pack}`,
    id,
    outcome: result.stale ? 'stale' : (result.state ?? result.outcome),
    detail: `attempt ${result.number} ${result.reason}${result.status === null ? '' : ` ${result.status}`}`,
  };
}
