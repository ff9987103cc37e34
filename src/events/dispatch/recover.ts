// Recovery: what is due, run once from any process at any time while others work. Queued records
// are dispatched, due retries run, a `sending` record is taken over only when its sender's lease
// lapsed (never resent blindly), and the rest is reported: retries not due yet, sends in flight.
import type { Resource } from '../../state/resource.js';
import type { World } from '../../world/world.js';
import { DUE_INDEX, END_OF_TIME } from '../../work/lease.js';
import { deliveryOf, type ClaimKind, type DeliveryState } from '../delivery-records.js';
import { packTwinName, registeredPacks, type Pack } from '../pack-registry.js';
import type { AttemptResult } from './attempt.js';

export interface RecoveryReport {
  /** Attempts whose sender's lease had lapsed: finished `unknown`, never resent blindly. */
  readonly markedUnknown: string[];
  readonly dispatched: AttemptResult[];
  /** Retries that were due and ran. */
  readonly retried: AttemptResult[];
  /** Retries not due yet: left in the store for a worker, with their due time. */
  readonly scheduled: { readonly deliveryId: string; readonly at: string }[];
  /** Attempts in flight under a live lease: someone is sending them; left alone. */
  readonly inFlight: {
    readonly deliveryId: string;
    readonly owner: string | null;
    readonly leaseUntil: string | null;
  }[];
  /** `scheduled.length`, kept for callers of the first version. */
  readonly scheduledRetries: number;
}

/** What recovery needs of the dispatcher. */
export interface Recoverer {
  readonly world: World;
  dispatch(
    packName: string,
    deliveryId: string,
    kind: ClaimKind,
  ): Promise<AttemptResult | undefined>;
  takeOver(pack: Pack, deliveryId: string, staleAfterMs: number): Promise<boolean>;
  scheduleClaim(packName: string, deliveryId: string, kind: ClaimKind, at: number): void;
}

export async function recoverDue(d: Recoverer, staleAfterMs: number): Promise<RecoveryReport> {
  const report = {
    markedUnknown: [] as string[],
    dispatched: [] as AttemptResult[],
    retried: [] as AttemptResult[],
    scheduled: [] as { deliveryId: string; at: string }[],
    inFlight: [] as { deliveryId: string; owner: string | null; leaseUntil: string | null }[],
  };
  const runs: Promise<void>[] = [];
  for (const pack of registeredPacks(d.world).values()) {
    const decl = pack.events;
    if (decl === undefined) continue;
    const twin = d.world.twin(packTwinName(pack));
    // Every record someone must still act on is on the due index (terminal ones are not).
    const open = await twin.read((view) =>
      view.lookupUpTo(decl.recordType, DUE_INDEX, END_OF_TIME, Number.MAX_SAFE_INTEGER),
    );
    const inState = (state: DeliveryState): Resource[] =>
      open.filter((record) => deliveryOf(record).state === state);
    for (const record of inState('sending')) {
      const f = deliveryOf(record);
      if (await d.takeOver(pack, record.id, staleAfterMs)) report.markedUnknown.push(record.id);
      else
        report.inFlight.push({
          deliveryId: record.id,
          owner: f.owner ?? null,
          leaseUntil: f.leaseUntil ?? null,
        });
    }
    for (const record of inState('queued')) {
      runs.push(
        d.dispatch(pack.name, record.id, 'first').then((r) => {
          if (r !== undefined) report.dispatched.push(r);
        }),
      );
    }
    const now = d.world.clock.now();
    for (const record of inState('retrying')) {
      const at = deliveryOf(record).nextAttemptAt;
      if (at === null || Date.parse(at) <= now) {
        runs.push(
          d.dispatch(pack.name, record.id, 'retry').then((r) => {
            if (r !== undefined) report.retried.push(r);
          }),
        );
      } else {
        report.scheduled.push({ deliveryId: record.id, at });
        d.scheduleClaim(pack.name, record.id, 'retry', Date.parse(at));
      }
    }
  }
  await Promise.all(runs);
  return { ...report, scheduledRetries: report.scheduled.length };
}
