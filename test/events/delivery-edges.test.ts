// Edge cases of one attempt: a status no HTTP receiver can send, an endpoint disabled between
// queueing and the first attempt, and endpoints whose event filter is empty or absent.
import { describe, expect, it } from 'vitest';
import { dispatchHarness } from '../support/dispatch-harness.js';

describe('one attempt at the edges', () => {
  for (const status of [0, 42, 600, 999])
    it(`a status of ${status} (outside 100–599) means nothing was understood: unknown`, async () => {
      const s = await dispatchHarness(() => status, { autoDispatch: false });
      await s.create();
      const result = await s.dispatcher.dispatch('acme', (await s.delivery()).id);
      expect(result).toMatchObject({ outcome: 'unknown', reason: 'invalid_status', status });
      expect((await s.attempts())[0]).toMatchObject({ state: 'unknown', reason: 'invalid_status' });
      await s.world.close();
    });

  it('a first attempt to an endpoint disabled after queueing is never made: cancelled', async () => {
    const s = await dispatchHarness(() => 200, { autoDispatch: false });
    await s.create();
    await s.twin.applyWrite({
      operation: 'endpoint.update',
      subjectType: 'endpoint',
      subjectId: 'ep',
      fields: { status: 'disabled' },
    });
    const id = (await s.delivery()).id;
    expect(await s.dispatcher.dispatch('acme', id)).toBeUndefined();
    expect((await s.delivery(id)).fields).toMatchObject({
      state: 'cancelled',
      reason: 'endpoint_disabled',
      attempts: 0,
      dueAt: null,
    });
    expect(s.received).toHaveLength(0);
    expect(await s.attempts()).toEqual([]);
    // …and a later recovery or worker finds nothing to do with it
    expect((await s.dispatcher.recover()).dispatched).toEqual([]);
    await s.world.close();
  });

  it('an empty or absent event filter takes every event type', async () => {
    const s = await dispatchHarness(() => 200);
    await s.world.secrets.set('all', 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw');
    for (const [id, events] of [
      ['ep_empty', []],
      ['ep_absent', undefined],
      ['ep_orders', ['order.*']],
    ] as const) {
      await s.twin.applyWrite({
        operation: 'endpoint.create',
        subjectType: 'endpoint',
        subjectId: id,
        fields: {
          url: `inproc://${id}/hook`,
          secret_ref: 'all',
          status: 'enabled',
          ...(events === undefined ? {} : { events: [...events] }),
        },
      });
    }
    await s.create('cus_9');
    await s.twin.applyWrite({ operation: 'order.place', subjectType: 'order', subjectId: 'ord_1' });
    await s.dispatcher.idle();
    const to = (type: string) =>
      s.received
        .filter((r) => JSON.parse(r.body).type === type)
        .map((r) => new URL(r.url).host)
        .sort();
    expect(to('customer.created')).toEqual(['ep', 'ep_absent', 'ep_empty']);
    expect(to('order.placed')).toEqual(['ep', 'ep_absent', 'ep_empty', 'ep_orders']);
    await s.world.close();
  });
});
