// The delivery invariants checker reads only the log: it passes every honest walk and names the
// rule a tampered log breaks — a claim removed, a second claim, accepted_at erased, a gap in the
// attempt numbers, an attempt finished twice.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkDeliveryInvariants } from '../../src/walk/index.js';

const lines = () => readFileSync('fixtures/walk-stripe.jsonl', 'utf8').trim().split('\n');
const parsed = () => lines().map((l) => JSON.parse(l) as Record<string, any>);
const rules = (ls: (string | Record<string, any>)[]) =>
  checkDeliveryInvariants(
    ls.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))),
  ).violations.map((v) => v.rule);

describe('delivery invariants', () => {
  it('an honest walk log keeps them all', () => {
    const report = checkDeliveryInvariants(lines());
    expect(report.violations).toEqual([]);
    expect(report.deliveries).toBeGreaterThan(0);
    expect(report.claims).toBe(report.finishes);
  });

  it('an attempt finished without its claim is an attempt without a claim', () => {
    const entries = parsed();
    const i = entries.findIndex((e) => e.operation === 'webhook_delivery.claim');
    entries.splice(i, 1);
    expect(rules(entries)).toContain('attempt-without-claim');
  });

  it('claiming while an attempt is in flight breaks one claim per attempt', () => {
    const entries = parsed();
    const i = entries.findIndex((e) => e.operation === 'webhook_delivery.claim');
    const second = structuredClone(entries[i]!);
    second.fields.attempts = 2;
    second.fields.currentAttempt = `${second.subjectId}.2`;
    second.projection.creates[0].id = `${second.subjectId}.2`;
    second.projection.creates[0].fields.number = 2;
    entries.splice(i + 1, 0, second);
    expect(rules(entries)).toContain('one-claim-per-attempt');
  });

  it('a claim that skips a number breaks dense attempt numbers', () => {
    const entries = parsed();
    const claim = entries.find((e) => e.operation === 'webhook_delivery.claim')!;
    claim.fields.attempts = 2;
    expect(rules(entries)).toContain('attempt-numbers-dense');
  });

  it('erasing accepted_at after a success is caught', () => {
    const entries = parsed();
    const accepted = entries.find(
      (e) => e.operation === 'webhook_delivery.finish' && typeof e.fields.acceptedAt === 'string',
    )!;
    const erase = {
      ...structuredClone(accepted),
      fields: { acceptedAt: null },
      projection: undefined,
    };
    entries.push(erase);
    expect(rules(entries)).toEqual(['accepted-at-kept']);
  });

  it('finishing an attempt twice is caught', () => {
    const entries = parsed();
    const finish = entries.find((e) => e.operation === 'webhook_delivery.finish')!;
    entries.push(structuredClone(finish));
    expect(rules(entries)).toContain('finish-once');
  });

  it('an attempt created outside a claim is caught', () => {
    const entries = parsed();
    const claim = entries.find((e) => e.operation === 'webhook_delivery.claim')!;
    entries.push({
      ...structuredClone(claim),
      operation: 'webhook_delivery.touch',
      fields: {},
      projection: {
        creates: [{ type: 'webhook_delivery_attempt', id: 'x.9', fields: { number: 9 } }],
      },
    });
    expect(rules(entries)).toContain('attempt-without-claim');
  });
});
