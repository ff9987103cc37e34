// Replays refused: a captured packet resent under a new delivery id, for the schemes whose id is
// not signed (GitHub; hmac-sha256 v1), is answered `duplicate` and never run — within the declared
// window, also when the replays arrive all at once; our own hmac-sha256 v2 signs the id, so a new
// id does not even verify. Over real HTTP on 127.0.0.1 as well as through the library.
import http from 'node:http';
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { startIngressHost } from '../../src/host/ingress/ingress-host.js';
import { RECORD_TYPE, REPLAY_GUARD_TYPE } from '../../src/triggers/trigger-records.js';
import {
  githubPacket,
  ingressHarness,
  NOW,
  ownPacket,
  SECRETS,
  T,
  type IngressHarness,
} from './packets.js';
import { expectRefusal } from './support.js';

const GITHUB_BODY = JSON.stringify({ action: 'opened', issue: { number: 7, title: 'Replay me' } });
const HMAC_BODY = JSON.stringify({ type: 'invoice.paid', id: 'inv_7' });

const handle = (
  h: IngressHarness,
  provider: string,
  headers: Record<string, string>,
  body: string,
) => h.ingress.handle({ tenantId: 'acme', scopeId: 'acme', provider, headers, rawBody: body });

/** A v1 packet: timestamp and body signed, X-Delivery-Id outside the MAC. */
function hmacV1(id: string, ts = T, body = HMAC_BODY): Record<string, string> {
  const sig = createHmac('sha256', SECRETS.hmac).update(`${ts}.${body}`).digest('hex');
  return { 'X-Signature': `sha256=${sig}`, 'X-Timestamp': String(ts), 'X-Delivery-Id': id };
}

describe('GitHub: the body is all that is signed', () => {
  it('a captured packet resent with a new X-GitHub-Delivery is a duplicate of the first, never run', async () => {
    const h = await ingressHarness();
    const first = await handle(
      h,
      'github',
      await githubPacket(GITHUB_BODY, 'd-original'),
      GITHUB_BODY,
    );
    expect(first).toMatchObject({ status: 'triggered', dedupeKey: 'github:d-original' });
    const replay = await handle(
      h,
      'github',
      await githubPacket(GITHUB_BODY, 'd-forged-1'),
      GITHUB_BODY,
    );
    expect(replay).toMatchObject({
      status: 'duplicate',
      dedupeKey: 'github:d-forged-1',
      replayOf: 'github:d-original',
      original: 'triggered',
      recordId: first.recordId,
    });
    // a manual redelivery keeps its id: a duplicate of its own key, as before
    expect(
      await handle(h, 'github', await githubPacket(GITHUB_BODY, 'd-original'), GITHUB_BODY),
    ).toMatchObject({ status: 'duplicate', original: 'triggered' });
    expect(h.received).toHaveLength(1);
    expect(await h.engine.record('acme', 'github:d-forged-1')).toBeUndefined();
    await h.world.close();
  });

  it('the window is declared per endpoint: inside it a replay is refused, after it the body counts as new', async () => {
    const h = await ingressHarness([
      {
        provider: 'gh-short',
        triggerId: 'github.events',
        scheme: 'github',
        resolveSecrets: () => [SECRETS.github],
        replayWindowSec: 60,
      },
    ]);
    expect(
      (await handle(h, 'gh-short', await githubPacket(GITHUB_BODY, 'd-1'), GITHUB_BODY)).status,
    ).toBe('triggered');
    await h.clock.advance(59_000);
    expect(
      await handle(h, 'gh-short', await githubPacket(GITHUB_BODY, 'd-2'), GITHUB_BODY),
    ).toMatchObject({ status: 'duplicate', replayOf: 'gh-short:d-1' });
    await h.clock.advance(2_000);
    expect(
      await handle(h, 'gh-short', await githubPacket(GITHUB_BODY, 'd-3'), GITHUB_BODY),
    ).toMatchObject({ status: 'triggered', dedupeKey: 'gh-short:d-3' });
    expect(h.received).toHaveLength(2);
    await h.world.close();
  });

  it('twenty replays under twenty new ids at once: exactly one run', async () => {
    const h = await ingressHarness();
    const answers = await Promise.all(
      Array.from({ length: 20 }, async (_, i) =>
        handle(h, 'github', await githubPacket(GITHUB_BODY, `d-burst-${i}`), GITHUB_BODY),
      ),
    );
    expect(answers.filter((a) => a.status === 'triggered')).toHaveLength(1);
    expect(
      answers.filter((a) => a.status === 'duplicate' || a.status === 'in_progress'),
    ).toHaveLength(19);
    expect(h.received).toHaveLength(1);
    expect(await h.world.twin('triggers').list(REPLAY_GUARD_TYPE)).toHaveLength(1);
    await h.world.close();
  });
});

describe('hmac-sha256', () => {
  it('v1: a packet resent under a new X-Delivery-Id (same signed timestamp and body) is a duplicate', async () => {
    const h = await ingressHarness();
    expect(await handle(h, 'plain', hmacV1('dlv_1'), HMAC_BODY)).toMatchObject({
      status: 'triggered',
      dedupeKey: 'plain:dlv_1',
    });
    await h.clock.advance(100_000);
    expect(await handle(h, 'plain', hmacV1('dlv_forged'), HMAC_BODY)).toMatchObject({
      status: 'duplicate',
      replayOf: 'plain:dlv_1',
    });
    // the sender's own retry re-signs with a new timestamp and keeps its id: a duplicate of its key
    expect(await handle(h, 'plain', hmacV1('dlv_1', T + 100), HMAC_BODY)).toMatchObject({
      status: 'duplicate',
      original: 'triggered',
    });
    // past the timestamp window the captured packet no longer verifies at all
    await h.clock.advance(250_000);
    await expectRefusal(() => handle(h, 'plain', hmacV1('dlv_late'), HMAC_BODY), 'STALE_TIMESTAMP');
    expect(h.received).toHaveLength(1);
    await h.world.close();
  });

  it('v2: the delivery id is signed, so a new id does not verify, and the same id is a duplicate', async () => {
    const h = await ingressHarness();
    const packet = ownPacket('hmac-sha256', SECRETS.hmac, HMAC_BODY, T, 'msg_v2_1');
    expect(await handle(h, 'plain', packet, HMAC_BODY)).toMatchObject({
      status: 'triggered',
      dedupeKey: 'plain:msg_v2_1',
    });
    await expectRefusal(
      () => handle(h, 'plain', { ...packet, 'X-Delivery-Id': 'msg_v2_forged' }, HMAC_BODY),
      'BAD_SIGNATURE',
      'headers.X-Signature',
    );
    expect(await handle(h, 'plain', packet, HMAC_BODY)).toMatchObject({ status: 'duplicate' });
    expect(h.received).toHaveLength(1);
    expect(await h.world.twin('triggers').list(REPLAY_GUARD_TYPE)).toEqual([]);
    await h.world.close();
  });
});

describe('over real HTTP', () => {
  it('a GitHub replay with a new delivery id is answered 200 duplicate, with the key it replays', async () => {
    const h = await ingressHarness();
    const host = await startIngressHost({ world: h.world, engine: h.engine, ingress: h.ingress });
    const post = (headers: Record<string, string>) =>
      new Promise<{ status: number; body: Record<string, unknown> }>((resolve, reject) => {
        const req = http.request(
          `${host.url}/ingress/acme/github`,
          {
            method: 'POST',
            headers: { ...headers, 'content-type': 'application/json' },
            agent: false,
          },
          (res) => {
            let text = '';
            res.on('data', (c: Buffer) => (text += c.toString()));
            res.on('end', () =>
              resolve({
                status: res.statusCode ?? 0,
                body: JSON.parse(text) as Record<string, unknown>,
              }),
            );
          },
        );
        req.on('error', reject);
        req.end(GITHUB_BODY);
      });
    expect(await post(await githubPacket(GITHUB_BODY, 'd-http-1'))).toMatchObject({
      status: 200,
      body: { status: 'triggered' },
    });
    expect(await post(await githubPacket(GITHUB_BODY, 'd-http-2'))).toMatchObject({
      status: 200,
      body: { status: 'duplicate', replayOf: 'github:d-http-1' },
    });
    expect(h.received).toHaveLength(1);
    await host.close();
  });
});

describe('replays cost the log a count per record and minute, not an entry each', () => {
  it('N replays of a captured packet grow the log by one entry per minute window, the answers unchanged', async () => {
    const h = await ingressHarness();
    const twin = h.engine.twin;
    const first = await handle(
      h,
      'github',
      await githubPacket(GITHUB_BODY, 'd-original'),
      GITHUB_BODY,
    );
    expect(first.status).toBe('triggered');
    const logBytes = async () => {
      let n = 0;
      for await (const line of twin.exportLines()) n += Buffer.byteLength(line);
      return n;
    };
    const heads = [await twin.head()];
    const bytes = [await logBytes()];
    const N = 60;
    for (let minute = 0; minute < 2; minute++) {
      for (let i = 0; i < N; i++) {
        // half under new delivery ids (replays), half under the original id (duplicates)
        const id = i % 2 === 0 ? `d-forged-${minute}-${i}` : 'd-original';
        const answer = await handle(h, 'github', await githubPacket(GITHUB_BODY, id), GITHUB_BODY);
        expect(answer).toMatchObject({
          status: 'duplicate',
          original: 'triggered',
          recordId: first.recordId,
          dedupeKey: `github:${id}`,
          ...(i % 2 === 0 ? { replayOf: 'github:d-original' } : {}),
        });
      }
      heads.push(await twin.head());
      bytes.push(await logBytes());
      await h.clock.advance(60_000);
    }
    // one entry per window (the later window's also tops up the earlier one's count)
    expect([heads[1]! - heads[0]!, heads[2]! - heads[1]!]).toEqual([1, 1]);
    // not N bodies: each window costs less than two receipts used to
    for (const i of [1, 2]) expect(bytes[i]! - bytes[i - 1]!).toBeLessThan(1_200);
    expect(h.received).toHaveLength(1);
    // stopping writes the rest of the open window's count
    await h.engine.stop();
    expect(await twin.head()).toBe(heads[2]! + 1);
    const record = await twin.get(RECORD_TYPE, first.recordId);
    expect(record?.fields.repeats).toEqual({
      count: 2 * N,
      byKind: { replay: N, duplicate: N },
      firstAt: NOW,
      lastAt: '2026-03-01T12:01:00.000Z',
      lastKind: 'duplicate',
      lastDedupeKey: 'github:d-original',
    });
    await h.world.close();
  });
});
