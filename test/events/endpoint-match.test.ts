// Endpoint matches: any of a kind's matches lets an endpoint take an event, a condition holds
// when the endpoint's field equals the event's value or, being a list, holds it; a match that is
// an array of conditions needs them all. Checked through fan-out on a real world.
import { describe, expect, it } from 'vitest';
import { isTwinError } from '../../src/errors.js';
import type { EndpointMatch } from '../../src/events/endpoint-match.js';
import { endpointMatches } from '../../src/events/endpoint-match.js';
import { VirtualClock } from '../../src/world/clock.js';
import { registerPack, type Pack } from '../../src/index.js'; // the root entry: registerPack's module moves in issue 9
import { openWorld } from '../../src/world/world.js';
import { acmePack } from '../support/acme-pack.js';

const REGION = { field: 'region', bodyPath: 'data.object.region' };
const ACCOUNT = { field: 'account', bodyPath: 'data.object.account' };

function packWith(match: readonly EndpointMatch[]): Pack {
  const base = acmePack();
  const events = base.events!;
  return { ...base, events: { ...events, endpoints: [{ ...events.endpoints[0]!, match }] } };
}

async function setup(match: readonly EndpointMatch[]) {
  const world = openWorld({
    root: ':memory:',
    clock: new VirtualClock('2026-04-01T00:00:00Z'),
    seed: 'match',
  });
  const twin = registerPack(world, packWith(match));
  const endpoint = async (id: string, fields: Record<string, unknown>) =>
    await twin.applyWrite({
      operation: 'endpoint.create',
      subjectType: 'endpoint',
      subjectId: id,
      fields: {
        url: `inproc://${id}`,
        secret_ref: id,
        events: ['*'],
        status: 'enabled',
        ...fields,
      } as never,
    });
  /** Creates a customer and answers which endpoints got a delivery record for it. */
  const takers = async (id: string, fields: Record<string, unknown>) => {
    await twin.applyWrite({
      operation: 'customer.create',
      subjectType: 'customer',
      subjectId: id,
      fields: fields as never,
    });
    const records = await twin.list('delivery');
    return records
      .filter((r) => JSON.parse(String(r.fields.body)).data.object.id === id)
      .map((r) => String(r.fields.endpointId))
      .sort();
  };
  return { world, endpoint, takers };
}

describe('endpoint match: any of several, list membership', () => {
  it('one value: an endpoint takes only events whose value equals its field', async () => {
    const s = await setup([REGION]);
    await s.endpoint('ep_eu', { region: 'eu' });
    await s.endpoint('ep_us', { region: 'us' });
    expect(await s.takers('c1', { id: 'c1', region: 'eu' })).toEqual(['ep_eu']);
    expect(await s.takers('c2', { id: 'c2', region: 'us' })).toEqual(['ep_us']);
    await s.world.close();
  });

  it('several matches: an endpoint takes the event when any one of them holds', async () => {
    const s = await setup([REGION, ACCOUNT]);
    await s.endpoint('ep_eu_a1', { region: 'eu', account: 'a1' });
    await s.endpoint('ep_us_a2', { region: 'us', account: 'a2' });
    // region matches one endpoint, account the other: both take it
    expect(await s.takers('c1', { id: 'c1', region: 'eu', account: 'a2' })).toEqual([
      'ep_eu_a1',
      'ep_us_a2',
    ]);
    // only the account matches: taken by that endpoint alone
    expect(await s.takers('c2', { id: 'c2', region: 'apac', account: 'a1' })).toEqual(['ep_eu_a1']);
    await s.world.close();
  });

  it('a list field: an endpoint whose field holds a list takes every value in it', async () => {
    const s = await setup([REGION]);
    await s.endpoint('ep_multi', { region: ['eu', 'apac'] });
    await s.endpoint('ep_us', { region: 'us' });
    expect(await s.takers('c1', { id: 'c1', region: 'apac' })).toEqual(['ep_multi']);
    expect(await s.takers('c2', { id: 'c2', region: 'eu' })).toEqual(['ep_multi']);
    expect(await s.takers('c3', { id: 'c3', region: 'us' })).toEqual(['ep_us']);
    await s.world.close();
  });

  it('no match: no condition holds, or the event lacks the value, and no record is written', async () => {
    const s = await setup([REGION, ACCOUNT]);
    await s.endpoint('ep', { region: ['eu'], account: 'a1' });
    expect(await s.takers('c1', { id: 'c1', region: 'us', account: 'a9' })).toEqual([]);
    expect(await s.takers('c2', { id: 'c2' })).toEqual([]);
    // an endpoint without the field takes nothing either
    await s.endpoint('ep_bare', {});
    expect(await s.takers('c3', { id: 'c3', region: 'eu' })).toEqual(['ep']);
    await s.world.close();
  });

  it('a field explicitly null takes only events without the value', async () => {
    const s = await setup([REGION]);
    await s.endpoint('ep_null', { region: null });
    expect(await s.takers('c1', { id: 'c1' })).toEqual(['ep_null']);
    expect(await s.takers('c2', { id: 'c2', region: 'eu' })).toEqual([]);
    await s.world.close();
  });

  it('a match that is an array of conditions needs all of them', async () => {
    const s = await setup([[REGION, ACCOUNT]]);
    await s.endpoint('ep', { region: 'eu', account: ['a1', 'a2'] });
    expect(await s.takers('c1', { id: 'c1', region: 'eu', account: 'a2' })).toEqual(['ep']);
    expect(await s.takers('c2', { id: 'c2', region: 'eu', account: 'a3' })).toEqual([]);
    expect(await s.takers('c3', { id: 'c3', region: 'us', account: 'a1' })).toEqual([]);
    await s.world.close();
  });

  it('compares JSON values, not their text: 7 is not "7", objects by content', () => {
    expect(
      endpointMatches(
        [{ field: 'repo', bodyPath: 'repository.id' }],
        { repo: 7 },
        { repository: { id: 7 } },
      ),
    ).toBe(true);
    expect(
      endpointMatches(
        [{ field: 'repo', bodyPath: 'repository.id' }],
        { repo: '7' },
        { repository: { id: 7 } },
      ),
    ).toBe(false);
    expect(
      endpointMatches(
        [{ field: 'k', bodyPath: 'k' }],
        { k: [{ b: 1, a: 2 }] },
        { k: { a: 2, b: 1 } },
      ),
    ).toBe(true);
    expect(endpointMatches(undefined, {}, {})).toBe(true);
  });

  it('refuses a malformed match at registration, naming the entry', async () => {
    const world = openWorld({ root: ':memory:', seed: 'match-bad' });
    let n = 0;
    const refused = (match: unknown): string | undefined => {
      const name = `bad${++n}`;
      try {
        registerPack(world, { ...packWith(match as EndpointMatch[]), name });
        return 'accepted';
      } catch (error) {
        if (!isTwinError(error, 'INVALID_CONFIG')) throw error;
        return error.path?.replace(`packs.${name}.`, '');
      }
    };
    expect(refused([])).toBe('events.endpoints[0].match');
    expect(refused([{ field: 'region' }])).toBe('events.endpoints[0].match[0].bodyPath');
    expect(refused([REGION, [ACCOUNT, { field: '', bodyPath: 'x' }]])).toBe(
      'events.endpoints[0].match[1][1].field',
    );
    expect(refused([REGION, []])).toBe('events.endpoints[0].match[1]');
    expect(refused(['region'])).toBe('events.endpoints[0].match[0]');
    expect(refused([REGION, [REGION, ACCOUNT]])).toBe('accepted');
    await world.close();
  });
});
