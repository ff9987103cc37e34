// Envelopes: every field validated with a typed error naming it, the payload hash computed over
// canonical JSON (never supplied), times normalized to UTC milliseconds, and the result frozen.
import { describe, expect, it } from 'vitest';
import { canonicalJson, sha256Hex } from '../../src/log/canonical-json.js';
import {
  checkEnvelope,
  createTriggerEnvelope,
  MAX_PAYLOAD_BYTES,
  type TriggerEnvelopeInput,
} from '../../src/triggers/envelope.js';
import { envelope, envelopeInput, expectRefusal } from './support.js';

const create = (overrides: Record<string, unknown>) => () =>
  createTriggerEnvelope({ ...envelopeInput(), ...overrides } as TriggerEnvelopeInput);

describe('createTriggerEnvelope', () => {
  it('computes payloadHash over canonical JSON, whatever the key order', () => {
    const a = envelope({ payload: { b: 1, a: { d: [1, 2], c: 'x' } } });
    const b = envelope({ payload: { a: { c: 'x', d: [1, 2] }, b: 1 } });
    expect(a.payloadHash).toBe(sha256Hex(canonicalJson({ a: { c: 'x', d: [1, 2] }, b: 1 })));
    expect(a.payloadHash).toBe(b.payloadHash);
    expect(envelope({ payload: { b: 2, a: { d: [1, 2], c: 'x' } } }).payloadHash).not.toBe(
      a.payloadHash,
    );
  });

  it('keeps every field, normalizes times to UTC milliseconds, and freezes the result and its payload', () => {
    const e = envelope({
      occurredAt: '2026-03-08T02:30:00-05:00',
      scheduledAt: '2026-03-08T07:30:00Z',
    });
    expect(e).toMatchObject({
      tenantId: 'acme',
      scopeId: 'store-1',
      source: { kind: 'custom', provider: 'shop' },
      triggerId: 'order.placed',
      eventId: 'ord_1',
      dedupeKey: 'order:ord_1',
    });
    expect(e.occurredAt).toBe('2026-03-08T07:30:00.000Z');
    expect(e.scheduledAt).toBe('2026-03-08T07:30:00.000Z');
    expect(Object.isFrozen(e)).toBe(true);
    expect(Object.isFrozen(e.payload)).toBe(true);
    expect(Object.isFrozen(e.source)).toBe(true);
  });

  it('copies the payload: changing the caller object afterwards changes neither payload nor hash', () => {
    const payload = { order: 'ord_1', lines: [{ sku: 'a' }] };
    const e = envelope({ payload });
    payload.lines[0]!.sku = 'b';
    expect(e.payload).toEqual({ order: 'ord_1', lines: [{ sku: 'a' }] });
    expect(e.payloadHash).toBe(sha256Hex(canonicalJson({ order: 'ord_1', lines: [{ sku: 'a' }] })));
  });

  it('accepts any JSON payload, including null, arrays and scalars', () => {
    for (const payload of [null, [1, 'a'], 'text', 0, false, {}])
      expect(envelope({ payload }).payload).toEqual(payload);
  });

  it('refuses a caller-supplied payloadHash, even a correct one', async () => {
    const good = envelope();
    await expectRefusal(
      create({ payloadHash: good.payloadHash }),
      'INVALID_ENVELOPE',
      'payloadHash',
    );
  });

  it.each([
    ['tenantId', undefined],
    ['tenantId', ''],
    ['tenantId', 'has space'],
    ['tenantId', 'a/b'],
    ['tenantId', 'x'.repeat(129)],
    ['tenantId', 42],
    ['scopeId', undefined],
    ['scopeId', 'two words'],
    ['scopeId', 'x'.repeat(257)],
    ['triggerId', ''],
    ['triggerId', '.starts-with-dot'],
    ['triggerId', 'has space'],
    ['eventId', undefined],
    ['eventId', ''],
    ['eventId', 'tab\there'],
    ['eventId', 'x'.repeat(513)],
    ['dedupeKey', undefined],
    ['dedupeKey', 'new\nline'],
    ['dedupeKey', 'x'.repeat(513)],
    ['occurredAt', undefined],
    ['occurredAt', 1767225600000],
    ['occurredAt', '2026-01-01'],
    ['occurredAt', 'yesterday'],
    ['scheduledAt', '2026-02-30T00:00:00Z'],
    ['scheduledAt', null],
  ])('refuses %s = %j, naming the field', async (field, value) => {
    const e = await expectRefusal(create({ [field]: value }), 'INVALID_ENVELOPE', field);
    expect(e.message).toContain(field);
  });

  it.each([
    [{ source: undefined }, 'source'],
    [{ source: 'webhook' }, 'source'],
    [{ source: { kind: 'email', provider: 'x' } }, 'source.kind'],
    [{ source: { kind: 'webhook' } }, 'source.provider'],
    [{ source: { kind: 'webhook', provider: 'Stripe' } }, 'source.provider'],
    [{ source: { kind: 'webhook', provider: 'stripe', extra: 1 } }, 'source.extra'],
    [{ nonsense: true }, 'nonsense'],
  ])('refuses a bad source or an unknown key: %j', async (overrides, path) => {
    await expectRefusal(create(overrides), 'INVALID_ENVELOPE', path);
  });

  it('refuses payloads that are not JSON, naming the offending path', async () => {
    await expectRefusal(create({ payload: undefined }), 'INVALID_ENVELOPE', 'payload');
    await expectRefusal(create({ payload: { at: new Date(0) } }), 'INVALID_ENVELOPE', 'payload.at');
    await expectRefusal(create({ payload: { n: Number.NaN } }), 'INVALID_ENVELOPE', 'payload.n');
    await expectRefusal(create({ payload: { f: () => 1 } }), 'INVALID_ENVELOPE', 'payload.f');
    await expectRefusal(create({ payload: { big: 1n } }), 'INVALID_ENVELOPE', 'payload.big');
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    await expectRefusal(create({ payload: cyclic }), 'INVALID_ENVELOPE', 'payload.self');
  });

  it('refuses a payload over the size limit as PAYLOAD_TOO_LARGE', async () => {
    const e = await expectRefusal(
      create({ payload: { blob: 'x'.repeat(MAX_PAYLOAD_BYTES) } }),
      'PAYLOAD_TOO_LARGE',
      'payload',
    );
    expect(e.details).toMatchObject({ limit: MAX_PAYLOAD_BYTES });
  });

  it('refuses a non-object input', async () => {
    await expectRefusal(() => createTriggerEnvelope(null as never), 'INVALID_ENVELOPE');
    await expectRefusal(() => createTriggerEnvelope([] as never), 'INVALID_ENVELOPE');
  });
});

describe('checkEnvelope (what ingest does with what it is handed)', () => {
  it('passes an envelope made by createTriggerEnvelope through unchanged', () => {
    const e = envelope();
    expect(checkEnvelope(e)).toBe(e);
  });

  it('rebuilds a hand-made copy and refuses one whose hash does not match its payload', async () => {
    const e = envelope();
    const copy = JSON.parse(JSON.stringify(e));
    expect(checkEnvelope(copy)).toEqual(e);
    await expectRefusal(
      () => checkEnvelope({ ...copy, payload: { order: 'ord_2', total: 1 } }),
      'INVALID_ENVELOPE',
      'payloadHash',
    );
    expect(checkEnvelope({ ...copy, payloadHash: undefined }).payloadHash).toBe(e.payloadHash);
  });

  it('refuses what is not an envelope at all', async () => {
    await expectRefusal(() => checkEnvelope('evt'), 'INVALID_ENVELOPE');
    await expectRefusal(
      () => checkEnvelope({ ...JSON.parse(JSON.stringify(envelope())), tenantId: '' }),
      'INVALID_ENVELOPE',
      'tenantId',
    );
  });
});
