// Dispatch options are checked where they are given: a route's when it is registered (and then
// never takes effect), a call's when it is made (and nothing is recorded). Each refusal names the
// option at fault; good options are filled in with their defaults.
import { describe, expect, it } from 'vitest';
import {
  checkDispatchOptions,
  mergeDispatch,
} from '../../../src/triggers/deferred/dispatch-options.js';
import { RECORD_TYPE } from '../../../src/triggers/trigger-records.js';
import { expectRefusal } from '../support.js';
import { deferredHarness, event } from './support.js';

const refused: [string, unknown, string][] = [
  ['not an object', 5, 'route.dispatch'],
  ['empty', {}, 'route.dispatch'],
  ['an unknown option', { delai: 5 }, 'route.dispatch.delai'],
  ['a negative delay', { delay: -1 }, 'route.dispatch.delay'],
  ['a fractional delay', { delay: 1.5 }, 'route.dispatch.delay'],
  ['a delay past ten years', { delay: 3651 * 86_400_000 }, 'route.dispatch.delay'],
  ['a delay as a string', { delay: '5s' }, 'route.dispatch.delay'],
  ['a delay until no time', { delay: { until: 'tomorrow' } }, 'route.dispatch.delay.until'],
  [
    'a delay until a day that does not exist',
    { delay: { until: '2026-02-30T00:00:00Z' } },
    'route.dispatch.delay.until',
  ],
  [
    'a delay with another key',
    { delay: { at: '2026-01-01T00:00:00Z' } },
    'route.dispatch.delay.at',
  ],
  [
    'a debounce without a period',
    { debounce: { key: 'payload.id' } },
    'route.dispatch.debounce.period',
  ],
  [
    'a debounce period of 0',
    { debounce: { key: 'payload.id', period: 0 } },
    'route.dispatch.debounce.period',
  ],
  ['a debounce without a key', { debounce: { period: 10 } }, 'route.dispatch.debounce.key'],
  [
    'a debounce key with an empty segment',
    { debounce: { key: 'payload..id', period: 10 } },
    'route.dispatch.debounce.key',
  ],
  [
    'a debounce key that is a number',
    { debounce: { key: 7, period: 10 } },
    'route.dispatch.debounce.key',
  ],
  [
    'an unknown debounce mode',
    { debounce: { key: 'payload.id', period: 10, mode: 'middle' } },
    'route.dispatch.debounce.mode',
  ],
  [
    'a maxWait shorter than the period',
    { debounce: { key: 'payload.id', period: 10, maxWait: 5 } },
    'route.dispatch.debounce.maxWait',
  ],
  [
    'an unknown debounce option',
    { debounce: { key: 'payload.id', period: 10, wait: 5 } },
    'route.dispatch.debounce.wait',
  ],
  ['a concurrency without a limit', { concurrency: {} }, 'route.dispatch.concurrency.limit'],
  ['a concurrency limit of 0', { concurrency: { limit: 0 } }, 'route.dispatch.concurrency.limit'],
  [
    'a concurrency limit too large',
    { concurrency: { limit: 10_001 } },
    'route.dispatch.concurrency.limit',
  ],
  [
    'an unknown onLimit',
    { concurrency: { limit: 1, onLimit: 'wait' } },
    'route.dispatch.concurrency.onLimit',
  ],
  [
    'an empty concurrency key',
    { concurrency: { limit: 1, key: '' } },
    'route.dispatch.concurrency.key',
  ],
  ['a ttl of 0', { ttl: 0 }, 'route.dispatch.ttl'],
  [
    'delay with debounce',
    { delay: 10, debounce: { key: 'payload.id', period: 10 } },
    'route.dispatch.delay',
  ],
  ['a ttl no longer than the delay', { delay: 1000, ttl: 1000 }, 'route.dispatch.ttl'],
  [
    'a ttl no longer than the quiet period',
    { debounce: { key: 'payload.id', period: 1000 }, ttl: 500 },
    'route.dispatch.ttl',
  ],
];

describe('dispatch options on a route', () => {
  for (const [what, dispatch, path] of refused) {
    it(`refuses ${what}, naming ${path}, and registers nothing`, async () => {
      const h = await deferredHarness([]);
      const error = await expectRefusal(
        () =>
          h.engine.registerRoute({
            triggerId: 'customer.updated',
            routineId: 'sync',
            buildInput: (e) => e.payload,
            dispatch: dispatch as never,
          }),
        'INVALID_ARGUMENT',
        path,
      );
      expect(error.message).toContain(path);
      expect(h.engine.hasRoute('customer.updated')).toBe(false);
      await h.world.close();
    });
  }

  it('names a non-finite number as it is, not as the null JSON would make of it', async () => {
    const h = await deferredHarness([]);
    for (const [value, says] of [
      [Infinity, 'got Infinity'],
      [NaN, 'got NaN'],
    ] as const) {
      const error = await expectRefusal(
        () =>
          h.engine.registerRoute({
            triggerId: 'customer.updated',
            routineId: 'sync',
            buildInput: (e) => e.payload,
            dispatch: { delay: value },
          }),
        'INVALID_ARGUMENT',
        'route.dispatch.delay',
      );
      expect(error.message).toContain(says);
    }
    await h.world.close();
  });

  it('fills in the defaults: trailing, no maxWait, queue, one gate per trigger', () => {
    expect(
      checkDispatchOptions(
        { debounce: { key: 'payload.id', period: 500 }, concurrency: { limit: 2 } },
        'd',
      ),
    ).toEqual({
      delay: null,
      debounce: { key: 'payload.id', period: 500, mode: 'trailing', maxWait: null },
      concurrency: { key: null, limit: 2, onLimit: 'queue' },
      ttl: null,
    });
    expect(
      checkDispatchOptions({ delay: { until: '2026-03-01T13:00:00+01:00' } }, 'd').delay,
    ).toEqual({ until: '2026-03-01T12:00:00.000Z' });
  });

  it('a call option replaces the route option of its name, and the pair is checked again', async () => {
    const route = checkDispatchOptions({ delay: 1000, concurrency: { limit: 1 } }, 'r');
    const call = checkDispatchOptions({ delay: 50 }, 'c');
    expect(mergeDispatch(route, call)).toEqual({ ...route, delay: { ms: 50 } });
    expect(mergeDispatch(route, undefined)).toBe(route);
    expect(mergeDispatch(undefined, call)).toBe(call);
    await expectRefusal(
      () => mergeDispatch(route, checkDispatchOptions({ debounce: { key: 'x', period: 5 } }, 'c')),
      'INVALID_ARGUMENT',
      'options.dispatch.delay',
    );
  });
});

describe('dispatch options on a call', () => {
  it('defers a call on a route without options, and refuses bad ones before recording anything', async () => {
    const h = await deferredHarness([{ triggerId: 'customer.updated', routineId: 'sync' }]);
    await expectRefusal(
      () => h.engine.ingest(event(1, { id: 'c1' }), undefined, { dispatch: { delay: -5 } }),
      'INVALID_ARGUMENT',
      'options.dispatch.delay',
    );
    await expectRefusal(
      () =>
        h.engine.ingest(event(1, { id: 'c1' }), undefined, {
          dispatch: { debounce: { key: 'payload.id', period: 10, mode: 'both' as never } },
        }),
      'INVALID_ARGUMENT',
      'options.dispatch.debounce.mode',
    );
    expect(await h.engine.twin.list(RECORD_TYPE)).toEqual([]);
    const answer = await h.engine.ingest(event(1, { id: 'c1' }), undefined, {
      dispatch: { delay: 60_000 },
    });
    expect(answer).toMatchObject({
      status: 'deferred',
      state: 'delayed',
      dueAt: '2026-03-01T12:01:00.000Z',
    });
    // Without options the route runs at once, as before.
    expect(await h.engine.ingest(event(2, { id: 'c2' }))).toMatchObject({ status: 'triggered' });
    await h.world.close();
  });
});
