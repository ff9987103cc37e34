// Schedule declarations: defaults, the revision fence on every change, and the refusals — a bad
// cron, zone, overlap or catch-up policy, a stale revision, an unknown schedule, another tenant's
// context — each a typed error naming the field, with nothing written.
import { afterEach, describe, expect, it } from 'vitest';
import { tenantContext } from '../../../src/triggers/tenant-context.js';
import {
  formatOverlap,
  parseOverlap,
  scheduleWork,
} from '../../../src/triggers/schedules/index.js';
import { SCHEDULE_TYPE, scheduleKey } from '../../../src/triggers/schedules/declaration.js';
import { backends } from '../../support/backends.js';
import { expectRefusal } from '../support.js';
import { harness, nightly, T0, type Harness } from './support.js';

const memory = backends.find((b) => b.name === 'memory')!;

describe('schedule declarations', () => {
  let h: Harness;
  afterEach(async () => h?.close());

  it('declares with defaults: UTC, the record routine, skip, latest catch-up; the next occurrence is its due time', async () => {
    h = await harness(memory);
    const d = await h.schedules.declare({
      tenantId: 'acme',
      scheduleId: 'nightly',
      cron: '0 3 * * *',
    });
    expect(d).toMatchObject({
      key: scheduleKey('acme', 'nightly'),
      tenantId: 'acme',
      scopeId: 'acme',
      timezone: 'UTC',
      routine: 'record',
      input: null,
      overlap: { kind: 'skip' },
      catchUp: { kind: 'latest' },
      enabled: true,
      revision: 1,
      cursor: T0,
      nextAt: '2026-03-02T03:00:00.000Z',
      dueAt: '2026-03-02T03:00:00.000Z',
      active: [],
      buffer: [],
    });
    expect(await h.schedules.get('acme', 'nightly')).toEqual(d);
  });

  it('accepts a seconds field, a zone and the text forms of the policies', async () => {
    h = await harness(memory);
    const d = await h.schedules.declare(
      nightly({
        cron: '*/10 * * * * *',
        timezone: 'America/New_York',
        overlap: 'buffer:3:newest',
        catchUp: 'all:5',
      }),
    );
    expect(d.nextAt).toBe('2026-03-02T00:00:10.000Z');
    expect(d.overlap).toEqual({ kind: 'buffer', size: 3, keep: 'newest' });
    expect(d.catchUp).toEqual({ kind: 'all', max: 5 });
  });

  it('every change raises the revision; a change against a stale one is refused naming both', async () => {
    h = await harness(memory);
    const first = await h.schedules.declare(nightly(), { expectedRevision: 0 });
    const second = await h.schedules.declare(nightly({ overlap: 'fire' }), { expectedRevision: 1 });
    expect([first.revision, second.revision]).toEqual([1, 2]);
    const head = await h.schedules.twin.head();
    const stale = await expectRefusal(
      () => h.schedules.declare(nightly({ overlap: 'supersede' }), { expectedRevision: 1 }),
      'REVISION_MISMATCH',
      'expectedRevision',
    );
    expect(stale.details).toMatchObject({ expectedRevision: 1, revision: 2 });
    expect(stale.message).toMatch(/revision 2.*revision 1/);
    const exists = await expectRefusal(
      () => h.schedules.declare(nightly(), { expectedRevision: 0 }),
      'REVISION_MISMATCH',
    );
    expect(exists.message).toContain('as a new schedule');
    await expectRefusal(
      () => h.schedules.pause('acme', 'nightly', { expectedRevision: 1 }),
      'REVISION_MISMATCH',
    );
    expect(await h.schedules.twin.head()).toBe(head);
    const paused = await h.schedules.pause('acme', 'nightly', { expectedRevision: 2 });
    expect(paused.revision).toBe(3);
    // Pausing a paused schedule changes nothing, so it writes nothing.
    expect((await h.schedules.pause('acme', 'nightly')).revision).toBe(3);
    expect((await h.schedules.resume('acme', 'nightly')).revision).toBe(4);
  });

  it('refuses a bad cron, zone, overlap or catch-up policy, naming the field, and writes nothing', async () => {
    h = await harness(memory);
    const cases: [Record<string, unknown>, string][] = [
      [{ cron: '61 * * * *' }, 'cron'],
      [{ cron: '0 3 * *' }, 'cron'],
      [{ cron: '@daily' }, 'cron'],
      [{ cron: '0 0 30 2 *' }, 'cron'],
      [{ timezone: 'Mars/Olympus' }, 'timezone'],
      [{ overlap: 'sometimes' }, 'overlap'],
      [{ overlap: 'buffer' }, 'overlap'],
      [{ overlap: 'buffer:0' }, 'overlap'],
      [{ overlap: 'buffer:101' }, 'overlap'],
      [{ overlap: 'buffer:2:middle' }, 'overlap'],
      [{ overlap: 'skip:1' }, 'overlap'],
      [{ overlap: { kind: 'buffer', size: 2, keep: 'all' } }, 'overlap.keep'],
      [{ catchUp: 'all' }, 'catchUp'],
      [{ catchUp: 'all:0' }, 'catchUp.max'],
      [{ catchUp: 'all:501' }, 'catchUp'],
      [{ catchUp: 'sometimes' }, 'catchUp'],
      [{ scheduleId: 'has space' }, 'scheduleId'],
      [{ routine: '' }, 'routine'],
      [{ enabled: 'yes' }, 'enabled'],
      [{ colour: 'blue' }, 'colour'],
    ];
    for (const [override, path] of cases)
      await expectRefusal(
        () => h.schedules.declare({ ...nightly(), ...override } as never),
        'INVALID_CONFIG',
        path,
      );
    await expectRefusal(
      () => h.schedules.declare(nightly({ input: { blob: 'x'.repeat(70_000) } })),
      'PAYLOAD_TOO_LARGE',
      'input',
    );
    expect(await h.schedules.twin.head()).toBe(0);
  });

  it('an unknown schedule is UNKNOWN_TRIGGER; another tenant or a read-only context is TENANT_FORBIDDEN', async () => {
    h = await harness(memory);
    await expectRefusal(() => h.schedules.pause('acme', 'nope'), 'UNKNOWN_TRIGGER', 'scheduleId');
    await expectRefusal(() => h.schedules.inspect('acme', 'nope'), 'UNKNOWN_TRIGGER');
    const globex = tenantContext({ tenantId: 'globex', may: ['configure', 'read'] });
    await expectRefusal(
      () => h.schedules.declare(nightly(), { context: globex }),
      'TENANT_FORBIDDEN',
      'context.tenantId',
    );
    const reader = tenantContext({ tenantId: 'acme', may: ['read'] });
    await expectRefusal(
      () => h.schedules.declare(nightly(), { context: reader }),
      'TENANT_FORBIDDEN',
      'context.may',
    );
    await h.schedules.declare(nightly(), {
      context: tenantContext({ tenantId: 'acme', may: ['configure'] }),
    });
    expect((await h.schedules.list('acme', reader)).items).toHaveLength(1);
    await expectRefusal(() => h.schedules.list('acme', globex), 'TENANT_FORBIDDEN');
  });

  it('a listing reports an undecodable row beside the others instead of failing', async () => {
    h = await harness(memory);
    await h.schedules.declare(nightly());
    await h.schedules.declare(nightly({ scheduleId: 'hourly', cron: '0 * * * *' }));
    await h.schedules.twin.applyWrite({
      operation: 'schedule.declare',
      subjectType: SCHEDULE_TYPE,
      subjectId: scheduleKey('acme', 'broken'),
      fields: { tenantId: 'acme', scheduleId: 'broken', overlap: 'maybe', revision: 1 },
    });
    const { items, undecodable } = await h.schedules.list('acme');
    expect(items.map((s) => s.scheduleId)).toEqual(['hourly', 'nightly']);
    expect(undecodable).toEqual([
      expect.objectContaining({ id: scheduleKey('acme', 'broken'), code: 'UNDECODABLE_RECORD' }),
    ]);
    await expectRefusal(() => h.schedules.get('acme', 'broken'), 'UNDECODABLE_RECORD');
    // The worker reports it and serves the others.
    await h.clock.set('2026-03-02T01:00:00.000Z');
    const kind = scheduleWork(h.schedules);
    const due = await kind.due(h.clock.now(), 10);
    expect(due.map((d) => d.id)).toEqual([
      `schedule:${scheduleKey('acme', 'hourly')}@2026-03-02T01:00:00.000Z`,
    ]);
    await h.schedules.claimDue(scheduleKey('acme', 'broken'));
    expect(h.reported).toMatchObject([
      { error: { code: 'UNDECODABLE_RECORD' }, where: `schedule ${scheduleKey('acme', 'broken')}` },
    ]);
    // Declaring it again, against the revision it holds, repairs it.
    await expectRefusal(
      () => h.schedules.declare(nightly({ scheduleId: 'broken' }), { expectedRevision: 0 }),
      'REVISION_MISMATCH',
    );
    const repaired = await h.schedules.declare(nightly({ scheduleId: 'broken' }), {
      expectedRevision: 1,
    });
    expect(repaired.revision).toBe(2);
    expect((await h.schedules.list('acme')).undecodable).toEqual([]);
  });

  it('declaring a paused schedule enabled again launches what waited in its buffer', async () => {
    h = await harness(memory);
    await h.schedules.declare(nightly({ cron: '* * * * *', overlap: 'buffer:2' }));
    const key = scheduleKey('acme', 'nightly');
    await h.clock.set('2026-03-02T00:01:00.000Z');
    const [first] = (await h.schedules.claimDue(key)).claims;
    await h.clock.set('2026-03-02T00:02:00.000Z');
    await h.schedules.claimDue(key);
    const paused = await h.schedules.pause('acme', 'nightly');
    if (!first?.claimed || !('reservation' in first) || first.reservation === undefined)
      throw new Error('expected a reservation');
    await h.schedules.recordResult(first.reservation, { outcome: 'failed', error: 'STOPPED' });
    // Paused: the buffered occurrence waits.
    expect((await h.schedules.get('acme', 'nightly'))!.active).toEqual([]);
    const again = await h.schedules.declare(nightly({ cron: '* * * * *', overlap: 'buffer:2' }), {
      expectedRevision: paused.revision,
    });
    expect(again.buffer).toEqual([]);
    expect(again.active).toHaveLength(1);
    const seen = await h.schedules.inspect('acme', 'nightly');
    expect(seen.active).toMatchObject([{ nominalAt: '2026-03-02T00:02:00.000Z', state: 'ready' }]);
  });
});

describe('overlap policies in text form', () => {
  it('parses and formats every form', () => {
    expect(parseOverlap('fire')).toEqual({ kind: 'fire' });
    expect(parseOverlap('skip')).toEqual({ kind: 'skip' });
    expect(parseOverlap('supersede')).toEqual({ kind: 'supersede' });
    expect(parseOverlap('buffer:2')).toEqual({ kind: 'buffer', size: 2, keep: 'oldest' });
    expect(formatOverlap(parseOverlap('buffer:5:newest'))).toBe('buffer:5:newest');
  });
});
