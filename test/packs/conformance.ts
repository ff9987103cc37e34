// The conformance suite every pack runs: for each event type it can send, through sendEvent to a
// real HTTP receiver on 127.0.0.1 — the packet verifies with the vendor's official library and
// announces that type; ids have the vendor's shape; the exported log replays to the same state
// hash; no secret appears anywhere in the log.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openWorld, packTwinName, replayLines } from '../../src/index.js';
import type { VendorPack } from '../../packs/kit/vendor-pack.js';
import { sendEvent } from '../../packs/send.js';
import { collect } from '../support/backends.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import type { OfficialVerifier } from './verifiers.js';

export interface ConformanceSubject {
  readonly pack: VendorPack;
  readonly verifier: OfficialVerifier;
  /** A fresh signing secret in the vendor's format. */
  readonly secret: () => string;
  /** Strings derived from a secret that must not appear in the log either (e.g. whsec_'s base64). */
  readonly secretForms?: (secret: string) => string[];
}

export function runConformance(subject: ConformanceSubject): void {
  const { pack, verifier } = subject;
  describe(`${pack.name} pack conformance`, () => {
    let receiver: Receiver;
    beforeAll(async () => {
      receiver = await startReceiver(() => 200);
    });
    afterAll(() => receiver.close());

    it('declares at least one sendable event type, each produced by one of its rules', () => {
      const declared = new Set(pack.events.rules.flatMap((r) => r.types));
      expect(Object.keys(pack.scenarios).length).toBeGreaterThan(0);
      for (const type of Object.keys(pack.scenarios)) expect(declared, type).toContain(type);
    });

    for (const eventType of Object.keys(pack.scenarios)) {
      it(`${eventType}: verifies with ${verifier.library}, vendor-shaped ids, replays, keeps no secret`, async () => {
        // A real clock: the official verifiers check the signing time against their own.
        const world = openWorld({ root: ':memory:' });
        try {
          const secret = subject.secret();
          const before = receiver.requests.length;
          const result = await sendEvent(world, {
            pack,
            eventType,
            to: `${receiver.url}/${pack.name}`,
            secret,
          });
          expect(result).toMatchObject({
            pack: pack.name,
            eventType,
            outcome: 'succeeded',
            status: 200,
            attempts: 1,
            reason: 'http_status',
          });
          expect(receiver.requests.length - before).toBe(1);

          const req = receiver.requests[before]!;
          const body = await verifier.verify(req, secret);
          expect(verifier.eventType(req, body)).toBe(eventType);

          const twin = world.twin(packTwinName(pack));
          const delivery = (await twin.get(pack.events.recordType, result.deliveryId))!.fields;
          expect(delivery.eventId).toMatch(pack.idShapes.eventId);
          expect(delivery.messageId).toMatch(pack.idShapes.messageId);
          expect(result.eventId).toBe(delivery.eventId);
          let checked = 0;
          for (const [type, shape] of Object.entries(pack.idShapes.resources)) {
            for (const r of await twin.list(type)) {
              expect(r.id, `${type} id`).toMatch(shape);
              checked++;
            }
          }
          expect(checked).toBeGreaterThan(0);

          const lines = await collect(twin.exportLines());
          const replay = await replayLines(lines);
          expect(replay.entries).toBe(lines.length);
          expect(replay.hash).toBe(await twin.hash());

          const log = lines.join('\n');
          for (const form of [secret, ...(subject.secretForms?.(secret) ?? [])])
            expect(log).not.toContain(form);
        } finally {
          await world.close();
        }
      });
    }

    it('refuses an event type it cannot send, listing the valid ones', async () => {
      const world = openWorld({ root: ':memory:' });
      try {
        const error = await sendEvent(world, {
          pack,
          eventType: 'no.such_event',
          to: receiver.url,
          secret: subject.secret(),
        }).catch((e: unknown) => e);
        expect(error).toMatchObject({ code: 'UNKNOWN_EVENT_TYPE' });
        for (const type of Object.keys(pack.scenarios))
          expect((error as Error).message).toContain(type);
      } finally {
        await world.close();
      }
    });
  });
}
