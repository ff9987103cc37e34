// The golden endpoint-health walk (fixtures/walk-endpoint-health.*) on SQLite and PostgreSQL:
// the same bytes and hashes as the committed fixture, and the story it is there to show — per
// vendor, degraded, throttled, broken open and closed again, disabled by the vendor's rule.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { backends } from '../support/backends.js';
import { endpointHealthWalk } from '../support/golden-walk-health.js';

const fixture = readFileSync('fixtures/walk-endpoint-health.jsonl', 'utf8');
const meta = JSON.parse(readFileSync('fixtures/walk-endpoint-health.json', 'utf8')) as {
  hashes: Record<string, string>;
};

interface Line {
  twin: string;
  subjectId: string;
  operation: string;
  fields: Record<string, unknown>;
}

function story(lines: readonly Line[], twin: string): string[] {
  return lines
    .filter((l) => l.twin === twin)
    .flatMap((l) =>
      l.operation === 'endpoint_health.admit' ||
      l.operation === 'endpoint_health.book' ||
      l.operation === 'endpoint_health.attempt'
        ? []
        : l.operation.startsWith('endpoint_health.')
          ? [String(l.fields.state)]
          : l.operation.endsWith('.hold')
            ? [`held:${String(l.fields.heldFor)}`]
            : [],
    )
    .filter((s, i, all) => s !== all[i - 1]);
}

describe('golden endpoint-health walk', () => {
  it('tells each vendor’s rule', () => {
    const lines = fixture
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Line);
    expect(story(lines, 'stripe')).toEqual(['degraded', 'disabled']);
    expect(story(lines, 'github')).toEqual(['degraded', 'open', 'held:breaker_open', 'healthy']);
    expect(story(lines, 'slack')).toEqual(['degraded', 'disabled']);
    expect(story(lines, 'standard-webhooks')).toEqual([
      'held:rate_limited',
      'throttled',
      'held:retry_after',
      // The deliveries that waited out the Retry-After go at the rate again, each at its slot.
      'held:rate_limited',
      'healthy',
      'degraded',
      'disabled',
    ]);
    // What each vendor does on disabling: Stripe and Slack email (a notice recorded); Svix sends
    // `endpoint.disabled` to the operational endpoint, through the dispatcher, and it is delivered.
    const of = (twin: string, op: string) =>
      lines.filter((l) => l.twin === twin && l.operation === op);
    expect(of('stripe', 'endpoint_notice.create')).toHaveLength(1);
    expect(of('slack', 'endpoint_notice.create')).toHaveLength(1);
    const announced = of('standard-webhooks', 'delivery.create').filter(
      (l) => l.fields.eventType === 'endpoint.disabled',
    );
    expect(announced).toHaveLength(1);
    const sent = lines.filter(
      (l) =>
        l.twin === 'standard-webhooks' &&
        l.operation === 'delivery.finish' &&
        l.fields.state === 'succeeded' &&
        l.subjectId === announced[0]!.subjectId,
    );
    expect(sent).toHaveLength(1);
  });

  for (const backend of backends.filter((b) => b.durable)) {
    it(`replays byte for byte on ${backend.name}`, async () => {
      const home = backend.create();
      const walk = await endpointHealthWalk({ backend: home.backend });
      try {
        expect(`${(await walk.exportLog()).join('\n')}\n`).toBe(fixture);
        expect(await walk.hashes()).toEqual(meta.hashes);
      } finally {
        await walk.close();
        home.cleanup();
      }
    }, 60_000);
  }
});
