// `twinworld send` under real processes: a send SIGKILLed at several points — right after its
// endpoint is created, after the causing write, after the endpoint is retired, while waiting on a
// slow receiver — leaves no endpoint that later events go to; and eight sends at once to one root
// each keep their secret and deliver a packet Stripe's own library accepts.
import Database from 'better-sqlite3';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openWorld, registerPack } from '../../src/index.js';
import * as stripe from '../../packs/stripe/index.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { stripeVerifier } from './verifiers.js';
import { sendEvent } from '../../packs/send.js';

const BIN = resolve('dist/src/cli/main.js');
const RECORD = stripe.pack.events.recordType;
const SECRET = 'whsec_sendAtomicTestSecret000000000001';
const dirs: string[] = [];
const receivers: Receiver[] = [];
afterAll(async () => {
  for (const r of receivers) await r.close();
  dirs.forEach((d) => rmSync(d, { recursive: true, force: true }));
});

function freshRoot(): string {
  const dir = mkdtempSync(join(tmpdir(), 'twinworld-send-atomic-'));
  dirs.push(dir);
  return join(dir, 'world');
}

function send(root: string, url: string, eventType = 'customer.updated'): ChildProcess {
  return spawn(
    process.execPath,
    [BIN, 'send', 'stripe', eventType, '--to', url, '--secret', SECRET, '--root', root, '--json'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
}

function exited(
  child: ChildProcess,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
  return new Promise((done) => child.once('exit', (code) => done({ code, stdout, stderr })));
}

type Phase = 'endpoint' | 'causing' | 'retired' | 'dispatching';

/** The operation whose commit marks each phase, as the child's log shows it. */
const MARK: Record<Exclude<Phase, 'dispatching'>, (op: string) => boolean> = {
  endpoint: (op) => op === 'webhook_endpoint.create',
  causing: (op) => op === 'customer.update',
  retired: (op) => op === 'webhook_endpoint.update',
};

/**
 * Runs one send and kills it once its log reaches `phase`: the parent watches the twin's file and,
 * the moment the phase's entry is committed, takes the write lock so the child cannot commit
 * anything more, SIGKILLs it, and lets go. Answers the operations the log holds at the kill.
 */
async function killAt(root: string, url: string, phase: Phase): Promise<string[]> {
  const child = send(root, url);
  const done = exited(child);
  const db = new Database(join(root, 'twins', 'stripe.db'));
  db.pragma('busy_timeout = 30000');
  const bodies = db.prepare('SELECT body FROM entries WHERE seq > ? ORDER BY seq').pluck();
  const ops: string[] = [];
  try {
    if (phase === 'dispatching') {
      // The receiver holds its answer; the attempt is claimed and in flight when the kill lands.
      for (let i = 0; i < 600 && !ops.includes(`${RECORD}.claim`); i++) {
        for (const body of bodies.all(ops.length) as string[])
          ops.push((JSON.parse(body) as { operation: string }).operation);
        await new Promise((r) => setTimeout(r, 25));
      }
      child.kill('SIGKILL');
      await done;
    } else {
      const deadline = Date.now() + 20_000;
      // A tight synchronous loop: the child is a separate process and keeps running meanwhile.
      while (!ops.some(MARK[phase]) && Date.now() < deadline) {
        for (const body of bodies.all(ops.length) as string[])
          ops.push((JSON.parse(body) as { operation: string }).operation);
      }
      db.prepare('BEGIN IMMEDIATE').run();
      child.kill('SIGKILL');
      await done;
      db.prepare('ROLLBACK').run();
    }
    ops.length = 0;
    for (const body of bodies.all(0) as string[])
      ops.push((JSON.parse(body) as { operation: string }).operation);
    return ops;
  } finally {
    db.close();
  }
}

/** Later events in the same world, from another process's point of view (this one). */
async function laterEvents(
  root: string,
): Promise<{ url: string; endpointId: string; eventType: string }[]> {
  const world = openWorld({ root });
  const twin = registerPack(world, stripe.pack);
  const head = await twin.head();
  const customer = await stripe.createCustomer(twin, { email: 'later@example.com', name: 'Later' });
  await stripe.updateCustomer(twin, customer.id, { name: 'Later, updated' });
  await stripe.deleteCustomer(twin, customer.id);
  const made = (await twin.entries({ after: head }))
    .filter((e) => e.operation === `${RECORD}.create`)
    .map((e) => ({
      url: String(e.fields?.url),
      endpointId: String(e.fields?.endpointId),
      eventType: String(e.fields?.eventType),
    }));
  await world.close();
  return made;
}

async function prepared(): Promise<string> {
  // The twin's file exists before the child starts, so the parent can watch it from the first commit.
  const root = freshRoot();
  const world = openWorld({ root });
  registerPack(world, stripe.pack);
  await world.close();
  return root;
}

describe('twinworld send, killed', () => {
  const phases: Phase[] = ['endpoint', 'causing', 'retired', 'dispatching'];
  for (const phase of phases) {
    it(`SIGKILLed once its log reaches "${phase}" leaves no endpoint that later events go to`, async () => {
      // Before retirement is the window that matters: a kill that landed later is tried again. The
      // causing write is followed by the retirement within a millisecond, too close to aim at
      // from outside; that state is made exactly in the next test instead.
      const mustPrecedeRetirement = phase === 'endpoint';
      let landed = false;
      for (let attempt = 0; attempt < 3 && !landed; attempt++) {
        let release!: () => void;
        const held = new Promise<void>((r) => (release = r));
        const r = await startReceiver(async () => {
          if (phase === 'dispatching') await held;
          return 200;
        });
        receivers.push(r);
        const root = await prepared();
        const ops = await killAt(root, `${r.url}/hooks/${phase}`, phase);
        release();
        expect(ops).toContain('webhook_endpoint.create');
        if (phase !== 'endpoint') expect(ops).toContain('customer.update');
        landed = !mustPrecedeRetirement || !ops.includes('webhook_endpoint.update');
        // The world has no other endpoint: later events, whichever they are, must go nowhere.
        expect(await laterEvents(root)).toEqual([]);
      }
      expect(landed, 'the kill landed before the endpoint was retired').toBe(true);
    });
  }

  it('a send that dies after its causing write, before retiring its endpoint, leaves it taking nothing more', async () => {
    const r = await startReceiver();
    receivers.push(r);
    const root = await prepared();
    // The same send, in this process, stopped exactly there: retiring throws as a kill would stop it.
    const world = openWorld({ root });
    const dying = {
      ...stripe.pack,
      retireEndpoint: () => {
        throw new Error('killed before retiring');
      },
    };
    await expect(
      sendEvent(world, {
        pack: dying,
        eventType: 'customer.updated',
        to: `${r.url}/hooks/dying`,
        secret: SECRET,
      }),
    ).rejects.toThrow('killed before retiring');
    const twin = world.twin('stripe');
    const endpoint = (await twin.list('webhook_endpoint'))[0]!;
    expect(endpoint.fields).toMatchObject({ status: 'enabled', url: `${r.url}/hooks/dying` });
    expect((await twin.list(RECORD)).map((d) => d.fields.eventType)).toEqual(['customer.updated']);
    await world.close();
    expect(await laterEvents(root)).toEqual([]);
  });

  it('a later event still reaches an ordinary endpoint of the same world (the guard is specific)', async () => {
    const r = await startReceiver();
    receivers.push(r);
    const root = await prepared();
    await killAt(root, `${r.url}/hooks/killed`, 'endpoint');
    const world = openWorld({ root });
    const twin = registerPack(world, stripe.pack);
    const ordinary = await stripe.createWebhookEndpoint(twin, {
      url: `${r.url}/hooks/ordinary`,
      enabled_events: ['customer.updated'],
      secret: SECRET,
    });
    await world.close();
    const later = await laterEvents(root);
    expect(later).toEqual([
      { url: `${r.url}/hooks/ordinary`, endpointId: ordinary.id, eventType: 'customer.updated' },
    ]);
  });
});

describe('twinworld send, eight at once on one root', () => {
  it('every send keeps its secret: eight signed packets, each accepted by stripe-node', async () => {
    const r = await startReceiver();
    receivers.push(r);
    const root = await prepared();
    const runs = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        exited(send(root, `${r.url}/hooks/${i}`, 'customer.created')),
      ),
    );
    for (const run of runs) {
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      expect(JSON.parse(run.stdout)).toMatchObject({
        outcome: 'succeeded',
        status: 200,
        reason: 'http_status',
      });
    }
    expect(r.requests).toHaveLength(8);
    for (const req of r.requests)
      expect(await stripeVerifier.verify(req, SECRET)).toMatchObject({ type: 'customer.created' });
    expect(new Set(r.requests.map((q) => q.url)).size).toBe(8);
  });
});
