// The WorkKind port's conformance suite (docs/work.md), run against every kind the kernel builds
// on dueIndexWork (src/work/due-index-work.ts) — trigger runs, deferred dispatches, schedules,
// calendars, deliveries — on every backend: due items come earliest first and only once due,
// `nextDue` names the earliest; one claim at a time (through `run`, and through `take` where a kind
// batches its claims); a take-over only after the lease lapses; and a stale owner's finish refused,
// the store not moved by it. Everything is said through the WorkKind interface and each kind's
// public API; a host whose process froze is a world whose clock never moves again (it never
// heartbeats), so leases lapse on the world clock, never on wall time.
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { StorageBackend } from '../../src/storage/port.js';
import { DUE_FIELD } from '../../src/work/lease.js';
import type { WorkContext, WorkReport } from '../../src/work/work-kind.js';
import { VirtualClock, isoAt } from '../../src/world/clock.js';
import { backends } from '../support/backends.js';
import { LEASE_MS, subjects, type KindHost, type Subject } from './work-kind-subjects.js';

const T0 = Date.parse('2026-03-01T00:00:30.000Z');

const as = (owner: string): WorkContext => ({ owner, leaseMs: LEASE_MS });

/** What a stale finish keeps beside the record it lost: what it saw, and which attempt saw it. */
const KEPT = new Set(['lateObservation', 'lastSupersededAttempt']);

/** The records the kind claims through, but what a stale finish keeps (KEPT). */
async function snapshot(subject: Subject, host: KindHost): Promise<unknown[]> {
  const [twin] = host.kind.twins();
  const out: unknown[] = [];
  for (const type of subject.records)
    for (const r of await twin!.list(type)) {
      const fields = Object.entries(r.fields).filter(([key]) => !KEPT.has(key));
      out.push({ type, id: r.id, fields: Object.fromEntries(fields) });
    }
  return out;
}

for (const backendCase of backends) {
  describe(`WorkKind conformance on ${backendCase.name}`, () => {
    const cleanups: (() => void)[] = [];
    afterAll(() => cleanups.forEach((c) => c()));
    let hosts: KindHost[] = [];
    afterEach(async () => {
      for (const h of hosts.reverse()) await h.close();
      hosts = [];
    });
    const store = (): { backend: StorageBackend; reopen: () => StorageBackend } => {
      const made = backendCase.create();
      cleanups.push(made.cleanup);
      return made;
    };
    const open = async (
      subject: Subject,
      backend: StorageBackend,
      clock: VirtualClock,
      name: string,
      held: boolean,
    ): Promise<KindHost> => {
      const host = await subject.open(backend, clock, name, held);
      hosts.push(host);
      return host;
    };

    describe.each(subjects.map((s) => [s.name, s] as const))('%s', (_name, subject) => {
      it('due items come earliest first, only once due, and nextDue names the earliest', async () => {
        const clock = new VirtualClock(T0);
        const { kind } = await open(subject, store().backend, clock, 'x', false);
        const [twin] = kind.twins();
        const itemId = subject.raw.itemId ?? ((id: string) => id);
        expect(await kind.nextDue()).toBeUndefined();
        expect(await kind.due(T0 + 10_000, 10)).toEqual([]);
        const at = (s: number) => isoAt(T0 + s * 1000);
        for (const [id, due] of [
          ['c', 3],
          ['a', 1],
          ['d', 100],
          ['b', 2],
        ] as const)
          await twin!.applyWrite({
            operation: 'conformance.seed',
            subjectType: subject.raw.type,
            subjectId: `conf_${id}`,
            fields: { [DUE_FIELD]: at(due), tenantId: `conf_${id}`, state: 'queued' },
            actor: 'system',
          });
        expect(await kind.nextDue()).toBe(T0 + 1000);
        expect(await kind.due(T0, 10)).toEqual([]);
        const due = await kind.due(T0 + 5000, 10);
        expect(due.map((d) => [d.id, d.dueAt])).toEqual([
          [itemId('conf_a'), at(1)],
          [itemId('conf_b'), at(2)],
          [itemId('conf_c'), at(3)],
        ]);
        expect((await kind.due(T0 + 5000, 2)).map((d) => d.id)).toEqual([
          itemId('conf_a'),
          itemId('conf_b'),
        ]);
      });

      it('due refuses what it cannot read by, naming the argument as the caller wrote it', async () => {
        const { kind } = await open(subject, store().backend, new VirtualClock(T0), 'x', false);
        for (const [nowMs, limit, path] of [
          [Number.NaN, 10, 'nowMs'],
          ['2026-03-01', 10, 'nowMs'],
          [9e15, 10, 'nowMs'],
          [T0, 0, 'limit'],
          [T0, 1.5, 'limit'],
          [T0, undefined, 'limit'],
        ] as const)
          await expect(
            kind.due(nowMs as number, limit as unknown as number),
            `due(${String(nowMs)}, ${String(limit)})`,
          ).rejects.toMatchObject({
            code: 'INVALID_ARGUMENT',
            path,
            message: expect.stringContaining(`${kind.name}.due(nowMs, limit): ${path} must be`),
          });
      });

      it('one claim at a time: two hosts run one due item, one of them claims it', async () => {
        const { backend, reopen } = store();
        const clock = new VirtualClock(T0);
        const a = await open(subject, backend, clock, 'a', true);
        const b = await open(subject, reopen(), clock, 'b', true);
        await b.seed();
        const [item, ...more] = await a.kind.due(clock.now(), 10);
        expect(more).toEqual([]);
        const runs = [a.kind.run(item!, as('wrk_a')), b.kind.run(item!, as('wrk_b'))];
        // The loser answers at once (nothing to claim); the winner waits at its gate.
        const lost = await Promise.race(runs.map((r, i) => r.then((report) => ({ i, report }))));
        expect(lost.report).toBeUndefined();
        const [winner, loser] = lost.i === 0 ? [b, a] : [a, b];
        await winner.gate.reached;
        // Held: not due, and no one else claims it — not even the loser asking again.
        expect(await a.kind.due(clock.now(), 10)).toEqual([]);
        expect(await loser.kind.run(item!, as('wrk_again'))).toBeUndefined();
        if (a.kind.inFlight !== undefined)
          expect(await a.kind.inFlight()).toBe(clock.now() + LEASE_MS);
        a.gate.open();
        b.gate.open();
        expect(await runs[1 - lost.i]).toBeDefined();
        expect([...a.effects, ...b.effects]).toHaveLength(1);
        expect(await a.kind.due(clock.now(), 10)).toEqual([]);
      });

      it('one claim at a time through take, where the kind batches its claims', async (context) => {
        const { backend, reopen } = store();
        const clock = new VirtualClock(T0);
        const a = await open(subject, backend, clock, 'a', true);
        if (a.kind.take === undefined)
          return context.skip('this kind claims one item per run: it offers no batched take');
        const b = await open(subject, reopen(), clock, 'b', true);
        await b.seed();
        const [fromA, fromB] = await Promise.all(
          [a, b].map((h) => h.kind.take!(clock.now(), 10, new Set())),
        );
        const taken = [...fromA!, ...fromB!];
        expect(taken).toHaveLength(1);
        await (fromA!.length === 1 ? a : b).gate.reached;
        expect(await a.kind.take(clock.now(), 10, new Set())).toEqual([]);
        expect(await b.kind.take!(clock.now(), 10, new Set())).toEqual([]);
        a.gate.open();
        b.gate.open();
        expect(await taken[0]!.done).toBeDefined();
        expect([...a.effects, ...b.effects]).toHaveLength(1);
      });

      it('a take-over only after the lease lapses, and the stale owner’s finish refused', async () => {
        const { backend, reopen } = store();
        const clock = new VirtualClock(T0);
        const b = await open(subject, reopen(), clock, 'b', false);
        await b.seed();
        // Host a claims, then freezes mid-run: its clock stops, so it never heartbeats again.
        const a = await open(subject, backend, new VirtualClock(clock.now()), 'a', true);
        const [item] = await a.kind.due(clock.now(), 10);
        const first = a.kind.run(item!, as('wrk_a'));
        await a.gate.reached;
        const lapse = clock.now() + LEASE_MS;
        // Due again only once the lease lapsed (a kind may name the take-over as another item).
        expect(await b.kind.due(lapse - 1, 10)).toEqual([]);
        const [takeover, ...more] = await b.kind.due(lapse, 10);
        expect(more).toEqual([]);
        await clock.advance(LEASE_MS - 1);
        expect(await b.kind.run(takeover!, as('wrk_b'))).toBeUndefined();
        await clock.advance(1);
        const report: WorkReport | undefined = await b.kind.run(takeover!, as('wrk_b'));
        expect(report).toBeDefined();
        expect(b.effects).toHaveLength(subject.rerun ? 1 : 0);
        // The frozen owner finishes late: refused (an answer saying so, or STALE_OWNER), nothing moved.
        const before = await snapshot(subject, b);
        a.gate.open();
        await first.catch((error: unknown) => expect(error).toMatchObject({ code: 'STALE_OWNER' }));
        expect(await snapshot(subject, b)).toEqual(before);
        expect(a.effects).toHaveLength(1);
      });
    });
  });
}
