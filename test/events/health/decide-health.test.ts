// The pure health decisions: the breaker at claim time, and how each finished
// attempt moves an endpoint toward degraded, open, closed and disabled on the world clock.
import { describe, expect, it } from 'vitest';
import { builtInPacks } from '../../../packs/index.js';
import { validateEventsDeclaration } from '../../../src/events/declaration.js';
import { admit } from '../../../src/events/health/admit.js';
import { afterAttempt } from '../../../src/events/health/after-attempt.js';
import {
  freshHealth,
  type EndpointHealthFields,
} from '../../../src/events/health/endpoint-health.js';
import {
  validateHealthPolicy,
  type HealthPolicy,
} from '../../../src/events/health/health-policy.js';

const T0 = Date.parse('2026-01-01T00:00:00.000Z');
const H = 3_600_000;
const policy: HealthPolicy = {
  source: 'test',
  ratePerSecond: 2,
  breaker: { failures: 3, pauseMs: 30_000 },
  disable: {
    afterMs: 5 * 24 * H,
    minFailures: 4,
    announce: 'event',
    eventType: 'endpoint.disabled',
  },
};
const refused = { outcome: 'failed', status: null } as const;
const http500 = { outcome: 'failed', status: 500 } as const;
const ok = { outcome: 'succeeded', status: 200 } as const;

function run(
  results: readonly { outcome: 'failed' | 'succeeded' | 'unknown'; status: number | null }[],
  stepMs: number,
): { health: EndpointHealthFields; changes: string[] } {
  let health = freshHealth('webhook_endpoint', 'we_1');
  const changes: string[] = [];
  results.forEach((r, i) => {
    const after = afterAttempt(health, policy, r, T0 + i * stepMs);
    health = after.health;
    if (after.change) changes.push(`${after.change.from}>${after.change.to}`);
  });
  return { health, changes };
}

// The rate limit's pacing (booked slots) is in pace.test.ts.

describe('breaker', () => {
  it('opens after consecutive connection failures, not after HTTP errors', () => {
    expect(run([http500, http500, http500, http500], 1000).health.state).toBe('degraded');
    const { health, changes } = run([refused, refused, refused], 1000);
    expect(changes).toEqual(['healthy>degraded', 'degraded>open']);
    expect(health.pausedUntil).toBe(new Date(T0 + 2000 + 30_000).toISOString());
  });

  it('holds attempts for the pause, lets one probe through, and closes on its success', () => {
    const open = run([refused, refused, refused], 1000).health;
    const during = admit(open, policy, T0 + 10_000);
    expect(during).toEqual({ ok: false, until: T0 + 32_000, why: 'breaker_open' });
    const probe = admit(open, policy, T0 + 32_000);
    expect(probe.ok && probe.health.state).toBe('half_open');
    if (!probe.ok) return;
    // A second start while the probe is out waits for another pause.
    expect(admit(probe.health, policy, T0 + 32_001).ok).toBe(false);
    const closed = afterAttempt(probe.health, policy, ok, T0 + 33_000);
    expect(closed.change).toEqual({ from: 'half_open', to: 'healthy', reason: 'delivered again' });
    expect(closed.health).toMatchObject({ failures: 0, connectFailures: 0, failingSince: null });
  });

  it('a failed probe opens it again for another pause', () => {
    const open = run([refused, refused, refused], 1000).health;
    const probe = admit(open, policy, T0 + 40_000);
    if (!probe.ok) throw new Error('probe refused');
    const again = afterAttempt(probe.health, policy, http500, T0 + 41_000);
    expect(again.change).toMatchObject({ from: 'half_open', to: 'open', reason: 'probe failed' });
    expect(again.health.pausedUntil).toBe(new Date(T0 + 71_000).toISOString());
  });
});

describe('disable', () => {
  it('disables once the failing run outlasts the window with enough failures', () => {
    const daily = run(Array(6).fill(http500), 24 * H);
    expect(daily.changes).toEqual(['healthy>degraded', 'degraded>disabled']);
    expect(daily.health.reason).toBe('failing for 5 days, 6 failed attempts');
  });

  it('is not disabled by few failures over a long time, nor by many in a short one', () => {
    expect(run([http500, http500, http500], 3 * 24 * H).health.state).toBe('degraded');
    expect(run(Array(50).fill(http500), 60_000).health.state).toBe('degraded');
  });

  it('a success in the window starts the run again', () => {
    const results = [http500, http500, http500, ok, http500, http500];
    expect(run(results, 24 * H).health).toMatchObject({ state: 'degraded', failures: 2 });
  });

  it('a disabled endpoint stays disabled whatever comes back (re-enabled by hand only)', () => {
    const disabled = run(Array(6).fill(http500), 24 * H).health;
    const later = afterAttempt(disabled, policy, ok, T0 + 10 * 24 * H);
    expect(later.change).toBeUndefined();
    expect(later.health.state).toBe('disabled');
  });
});

describe('policy refusals', () => {
  it.each([
    [{ ...policy, source: '' }, 'health.source'],
    [{ ...policy, ratePerSecond: 0 }, 'health.ratePerSecond'],
    [{ ...policy, breaker: { failures: 0, pauseMs: 1 } }, 'health.breaker.failures'],
    [{ ...policy, breaker: { failures: 2, pauseMs: -1 } }, 'health.breaker.pauseMs'],
    [
      { ...policy, disable: { afterMs: 1, minFailures: 1.5, announce: 'notice' } },
      'health.disable.minFailures',
    ],
    [
      { ...policy, disable: { afterMs: 1, minFailures: 1, announce: 'email' } },
      'health.disable.announce',
    ],
    [
      { ...policy, disable: { afterMs: 1, minFailures: 1, announce: 'event' } },
      'health.disable.eventType',
    ],
  ])('refuses %j at %s', (bad, path) => {
    expect(() => validateHealthPolicy(bad as HealthPolicy)).toThrow(
      expect.objectContaining({ code: 'INVALID_CONFIG', path }),
    );
  });
});

describe('declared in a pack', () => {
  const base = {
    rules: [{ operation: 'thing.create', types: ['thing.created'] }],
    envelope: {},
    eventIdPrefix: 'evt_',
    signing: 'hmac-sha256',
    recordType: 'delivery',
  } as const;
  const endpoint = { type: 'ep', urlField: 'url', secretRefField: 's', eventsField: 'e' };

  it('a disable rule needs to know how to disable each endpoint kind', () => {
    const health = {
      source: 's',
      disable: { afterMs: 1, minFailures: 1, announce: 'notice' },
    } as const;
    expect(() => validateEventsDeclaration({ ...base, endpoints: [endpoint], health })).toThrow(
      expect.objectContaining({ path: 'events.endpoints[0].enabledWhen' }),
    );
    const byStatus = { ...endpoint, enabledWhen: { field: 'status', value: 'enabled' } };
    expect(() => validateEventsDeclaration({ ...base, endpoints: [byStatus], health })).toThrow(
      expect.objectContaining({ path: 'events.endpoints[0].disabledValue' }),
    );
    const byFlag = { ...endpoint, enabledWhen: { field: 'enabled', value: true } };
    expect(validateEventsDeclaration({ ...base, endpoints: [byFlag], health }).health).toBe(health);
  });

  it('every vendor pack declares its rule with the page it comes from', () => {
    const sources = builtInPacks.map(
      (pack) => validateEventsDeclaration(pack.events).health?.source,
    );
    expect(sources.length).toBeGreaterThanOrEqual(3);
    for (const source of sources) expect(source).toMatch(/^https:\/\/docs\./);
  });
  it('a 429 with Retry-After throttles the whole endpoint until it ends, then it is only degraded', () => {
    const told = afterAttempt(
      freshHealth('endpoint', 'ep_1'),
      { source: 'test' },
      { outcome: 'failed', status: 429, retryAfterSec: 5 },
      T0,
    );
    expect(told.change).toEqual({
      from: 'healthy',
      to: 'throttled',
      reason: 'answered 429 with Retry-After 5 s',
    });
    expect(told.health.pausedUntil).toBe(new Date(T0 + 5_000).toISOString());
    expect(admit(told.health, { source: 'test' }, T0 + 4_999)).toEqual({
      ok: false,
      until: T0 + 5_000,
      why: 'retry_after',
    });
    const after = admit(told.health, { source: 'test' }, T0 + 5_000);
    expect(after.ok && after.health).toMatchObject({ state: 'degraded', pausedUntil: null });
    // Without a Retry-After (or on a status other than 429/503) it only degrades.
    const plain = afterAttempt(
      freshHealth('endpoint', 'ep_1'),
      { source: 'test' },
      { outcome: 'failed', status: 500, retryAfterSec: 5 },
      T0,
    );
    expect(plain.change?.to).toBe('degraded');
  });
});
