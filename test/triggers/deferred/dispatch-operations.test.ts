// The operator's side, over the store alone: list by state (newest first, by tenant), inspect,
// cancel — also a dispatch made by an engine that is gone. Tenant contexts see and cancel only
// their own tenant's dispatches; on PostgreSQL the database itself hides the other tenant's rows.
import { afterEach, describe, expect, it } from 'vitest';
import { backends } from '../../support/backends.js';
import type { DeferredAnswer } from '../../../src/triggers/answer.js';
import {
  DISPATCH_LIST_INDEX,
  DISPATCH_TYPE,
} from '../../../src/triggers/deferred/dispatch-record.js';
import { PostgresBackend } from '../../../src/storage/postgres/index.js';
import { createDatabase, createLogin, urlFor } from '../../storage/postgres-support.js';
import {
  cancelDispatch,
  inspectDispatch,
  listDispatches,
} from '../../../src/triggers/deferred/operations.js';
import { tenantContext } from '../../../src/triggers/tenant-context.js';
import { VirtualClock } from '../../../src/world/clock.js';
import { openWorld } from '../../../src/world/world.js';
import { expectRefusal } from '../support.js';
import { deferredHarness, event, T0, type DeferredHarness } from './support.js';

for (const backendCase of backends) {
  describe(`dispatch operations on ${backendCase.name}`, () => {
    let cleanups: (() => Promise<void> | void)[] = [];
    afterEach(async () => {
      for (const c of cleanups.reverse()) await c();
      cleanups = [];
    });

    async function filled(): Promise<{
      h: DeferredHarness;
      made: ReturnType<(typeof backendCase)['create']>;
      ids: Record<string, string>;
    }> {
      const made = backendCase.create();
      const h = await deferredHarness(
        [
          { triggerId: 'reminder', routineId: 'sync', dispatch: { delay: 60_000 } },
          { triggerId: 'build', routineId: 'sync', dispatch: { concurrency: { limit: 1 } } },
        ],
        { backend: made.backend },
      );
      cleanups.push(made.cleanup, () => h.world.close());
      const ids: Record<string, string> = {};
      const put = async (name: string, ...args: Parameters<typeof event>) =>
        (ids[name] = ((await h.engine.ingest(event(...args))) as DeferredAnswer).dispatchId);
      await put('acme-reminder', 1, { n: 1 }, { triggerId: 'reminder' });
      await put('globex-reminder', 2, { n: 2 }, { triggerId: 'reminder', tenantId: 'globex' });
      await put('acme-build-1', 3, { n: 3 }, { triggerId: 'build' });
      await put('acme-build-2', 4, { n: 4 }, { triggerId: 'build' });
      await h.work.step(ids['acme-build-1']!);
      await h.work.step(ids['acme-build-2']!);
      return { h, made, ids };
    }

    it('lists by state and tenant, newest first, and inspects one with its plan and envelope', async () => {
      const { h, ids } = await filled();
      const all = await listDispatches(h.world);
      expect(all.map((d) => d.dispatchId)).toEqual([
        ids['acme-build-2'],
        ids['acme-build-1'],
        ids['globex-reminder'],
        ids['acme-reminder'],
      ]);
      expect(all.map((d) => d.state)).toEqual(['queued', 'dispatched', 'delayed', 'delayed']);
      expect((await listDispatches(h.world, { state: 'delayed' })).map((d) => d.tenantId)).toEqual([
        'globex',
        'acme',
      ]);
      expect(
        (await listDispatches(h.world, { tenant: 'acme', state: 'delayed' })).map(
          (d) => d.dispatchId,
        ),
      ).toEqual([ids['acme-reminder']]);
      expect(await listDispatches(h.world, { state: 'expired' })).toEqual([]);
      expect((await listDispatches(h.world, { limit: 1 })).map((d) => d.dispatchId)).toEqual([
        ids['acme-build-2'],
      ]);
      await expectRefusal(
        () => listDispatches(h.world, { state: 'waiting' as never }),
        'INVALID_ARGUMENT',
        'state',
      );
      await expectRefusal(() => listDispatches(h.world, { limit: 0 }), 'INVALID_ARGUMENT', 'limit');

      const detail = await inspectDispatch(h.world, ids['acme-build-1']!);
      expect(detail).toMatchObject({
        dispatchId: ids['acme-build-1'],
        state: 'dispatched',
        concurrency: { key: '', limit: 1, ticket: 0, running: true },
        owner: 'wrk_test',
        fence: 1,
        plan: { concurrency: { key: '', limit: 1, onLimit: 'queue' }, delay: null },
        envelope: { dedupeKey: 'evt_3', payload: { n: 3 } },
        run: { status: 'in_progress', attempt: 1 },
      });
      await expectRefusal(() => inspectDispatch(h.world, 'nope'), 'UNKNOWN_DISPATCH', 'id');
    });

    it('cancels from another world on the same store, with the engine that made it gone', async () => {
      const { h, made, ids } = await filled();
      if (!backendCase.durable) return;
      await h.engine.stop();
      const other = openWorld({
        root: ':memory:',
        clock: new VirtualClock(T0),
        backend: made.reopen(),
      });
      cleanups.push(() => other.close());
      expect(await cancelDispatch(other, ids['acme-reminder']!)).toMatchObject({
        changed: true,
        dispatch: { state: 'cancelled', reason: 'cancelled', endedAt: T0 },
      });
      expect((await inspectDispatch(h.world, ids['acme-reminder']!)).state).toBe('cancelled');
    });

    it('a tenant context lists, inspects and cancels only its own', async () => {
      const { h, ids } = await filled();
      const globexRead = tenantContext({ tenantId: 'globex', may: ['read'] });
      const globex = tenantContext({ tenantId: 'globex', may: ['read', 'configure'] });
      expect(
        (await listDispatches(h.world, { context: globexRead })).map((d) => d.dispatchId),
      ).toEqual([ids['globex-reminder']]);
      await expectRefusal(
        () => listDispatches(h.world, { context: globexRead, tenant: 'acme' }),
        'TENANT_FORBIDDEN',
        'context.tenantId',
      );
      await expectRefusal(
        () => inspectDispatch(h.world, ids['acme-reminder']!, { context: globexRead }),
        'UNKNOWN_DISPATCH',
        'id',
      );
      await expectRefusal(
        () => cancelDispatch(h.world, ids['acme-reminder']!, { context: globex }),
        'UNKNOWN_DISPATCH',
        'id',
      );
      await expectRefusal(
        () => cancelDispatch(h.world, ids['globex-reminder']!, { context: globexRead }),
        'TENANT_FORBIDDEN',
        'context.may',
      );
      expect(
        await cancelDispatch(h.world, ids['globex-reminder']!, { context: globex }),
      ).toMatchObject({ changed: true, dispatch: { state: 'cancelled' } });
      expect((await inspectDispatch(h.world, ids['acme-reminder']!)).state).toBe('delayed');
    });
  });
}

describe('dispatches under PostgreSQL row-level security', () => {
  it('a section scoped to one tenant is not shown another tenant’s dispatches, by the database', async () => {
    const db = await createDatabase('dispatch_rls');
    await (await PostgresBackend.open(db.url, 'w')).close();
    // As production connects: a login that is a member of twinworld_app only, owning nothing.
    const appUrl = urlFor(db.name, await createLogin());
    const writer = await deferredHarness(
      [{ triggerId: 'reminder', routineId: 'sync', dispatch: { delay: 60_000 } }],
      { backend: new PostgresBackend(appUrl, 'w') },
    );
    const acme = (await writer.engine.ingest(
      event(1, { n: 1 }, { triggerId: 'reminder' }),
    )) as DeferredAnswer;
    const globex = (await writer.engine.ingest(
      event(2, { n: 2 }, { triggerId: 'reminder', tenantId: 'globex' }),
    )) as DeferredAnswer;
    await writer.world.close();
    // A fresh world: nothing cached in this process, every read goes to the database.
    const reader = openWorld({
      root: ':memory:',
      clock: new VirtualClock(T0),
      backend: new PostgresBackend(appUrl, 'w'),
    });
    try {
      const twin = reader.twin('triggers');
      twin.declareIndex({ type: DISPATCH_TYPE, name: DISPATCH_LIST_INDEX, field: 'listKeys' });
      const scoped = await twin.read(
        (view) => ({
          byState: view
            .lookup(DISPATCH_TYPE, DISPATCH_LIST_INDEX, 'state:delayed')
            .map((r) => r.id),
          theirs: view.get(DISPATCH_TYPE, acme.dispatchId),
          mine: view.get(DISPATCH_TYPE, globex.dispatchId)?.id,
        }),
        { tenant: 'globex' },
      );
      expect(scoped).toEqual({
        byState: [globex.dispatchId],
        theirs: undefined,
        mine: globex.dispatchId,
      });
      const wide = await twin.read((view) =>
        view.lookup(DISPATCH_TYPE, DISPATCH_LIST_INDEX, 'state:delayed').map((r) => r.id),
      );
      expect(wide.sort()).toEqual([acme.dispatchId, globex.dispatchId].sort());
    } finally {
      await reader.close();
    }
  });
});
