// A commit whose answer is lost: the server committed, then the connection dropped before the
// client read the reply. Running the section again would append its entries a second time; the
// store asks (under the twin's lock, on another session) whether its last entry landed and answers
// as committed when it did — through a real TCP proxy on loopback that cuts the reply to COMMIT.
import { createServer, connect, type Server, type Socket } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { commit } from '../../src/world/decision.js';
import type { ReadView } from '../../src/state/read-view.js';
import type { World } from '../../src/world/world.js';
import { counterHost } from './postgres-counter-hosts.js';
import { createDatabase, uniqueName } from './postgres-support.js';

const worlds: World[] = [];
const servers: Server[] = [];
afterAll(async () => {
  for (const w of worlds) await w.close();
  for (const s of servers) s.close();
});

/**
 * A loopback proxy to `port`. `cutNextCommit()` drops the reply to the next COMMIT the client
 * sends (the server committed); `cutNextCommit('request')` drops that COMMIT itself (it did not).
 */
async function proxy(
  port: number,
): Promise<{ port: number; cutNextCommit(what?: 'reply' | 'request'): void; cuts(): number }> {
  let armed: 'reply' | 'request' | undefined;
  let cuts = 0;
  const server = createServer((client: Socket) => {
    const upstream = connect(port, '127.0.0.1');
    let dropReply = false;
    client.on('data', (chunk) => {
      if (armed !== undefined && chunk.includes('COMMIT')) {
        const what = armed;
        armed = undefined;
        if (what === 'request') {
          cuts++;
          client.destroy();
          upstream.destroy();
          return;
        }
        dropReply = true;
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk) => {
      if (!dropReply) return void client.write(chunk);
      cuts++;
      client.destroy();
      upstream.destroy();
    });
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    cutNextCommit: (what = 'reply') => void (armed = what),
    cuts: () => cuts,
  };
}

const bump = (view: ReadView) => {
  const n = Number(view.get('counter', 'c')?.fields.n ?? 0) + 1;
  return commit(
    [{ operation: 'counter.bump', subjectType: 'counter', subjectId: 'c', fields: { n } }],
    n,
  );
};

describe('PostgreSQL: a commit whose answer is lost', () => {
  it('is answered as committed when it landed, and never appended twice', async () => {
    const db = await createDatabase('lost');
    const url = new URL(db.url);
    const via = await proxy(Number(url.port));
    url.port = String(via.port);
    const twin = counterHost(url.toString(), uniqueName('w'), worlds);
    expect((await twin.applyAtomic(bump)).result).toBe(1);

    // One action alone: before, its caller got the lost connection's error though it committed.
    via.cutNextCommit();
    expect((await twin.applyAtomic(bump)).result).toBe(2);
    expect(via.cuts()).toBe(1);

    // A group: before, each member ran again alone after the group's commit, counting twice.
    via.cutNextCommit();
    const results = await Promise.all([twin.applyAtomic(bump), twin.applyAtomic(bump)]);
    expect(results.map((r) => r.result)).toEqual([3, 4]);
    expect(via.cuts()).toBe(2);

    expect((await twin.get('counter', 'c'))!.fields.n).toBe(4);
    expect((await twin.entries()).map((e) => e.fields?.n)).toEqual([1, 2, 3, 4]);
    // What the next action decides on is the committed state.
    expect((await twin.applyAtomic(bump)).result).toBe(5);
  });

  it('keeps the connection error when the commit never reached the server, and nothing is written', async () => {
    const db = await createDatabase('lostreq');
    const url = new URL(db.url);
    const via = await proxy(Number(url.port));
    url.port = String(via.port);
    const twin = counterHost(url.toString(), uniqueName('w'), worlds);
    expect((await twin.applyAtomic(bump)).result).toBe(1);
    via.cutNextCommit('request');
    await expect(twin.applyAtomic(bump)).rejects.toMatchObject({ code: 'STORE_UNREACHABLE' });
    expect(via.cuts()).toBe(1);
    expect(await twin.head()).toBe(1);
    expect((await twin.applyAtomic(bump)).result).toBe(2);
  });
});
