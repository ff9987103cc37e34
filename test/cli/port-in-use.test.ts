// A port another process listens on, given to a command that starts a server on 127.0.0.1: a typed
// refusal naming the port and the way out (PORT_IN_USE), never Node's bare EADDRINUSE, and a
// refused start leaves no world root behind.
import { existsSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../support/backends.js';
import { listenOn, portRefusal } from '../../src/host/listen-port.js';
import { isTwinError } from '../../src/errors.js';
import { start } from '../support/cli-process.js';
import { cli } from './in-process.js';

let dir: string;
let taken: Server;
let port: number;

beforeAll(async () => {
  dir = tempDir('twinworld-port-in-use-');
  // serve reads its endpoint's secret from the environment before it opens anything.
  process.env.PORT_TEST_SECRET = 'whsec_port_test';
  taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  port = (taken.address() as { port: number }).port;
});
afterAll(async () => {
  await new Promise((resolve) => taken.close(resolve));
  delete process.env.PORT_TEST_SECRET;
  rmSync(dir, { recursive: true, force: true });
});

const refusal = () =>
  new RegExp(
    `^error PORT_IN_USE: port ${port} is in use on 127\\.0\\.0\\.1: another process listens there; pick another --port, or 0 for a free one \\(at port\\)\\n$`,
  );

describe('a port in use', () => {
  it('up: PORT_IN_USE, with --json too, and no root created', async () => {
    const root = join(dir, 'up');
    const r = await cli(['up', '--port', String(port), '--root', root]);
    expect(r.stderr).toMatch(refusal());
    expect(r.status).toBe(1);
    const j = await cli(['up', '--port', String(port), '--root', root, '--json']);
    expect(j.status).toBe(1);
    expect(JSON.parse(j.stderr)).toMatchObject({
      error: 'PORT_IN_USE',
      path: 'port',
      details: { host: '127.0.0.1', port },
    });
    expect(existsSync(root)).toBe(false);
  });

  it('serve: PORT_IN_USE, and no root created', async () => {
    const root = join(dir, 'serve');
    const r = await cli([
      'serve',
      '--port',
      String(port),
      '--endpoint',
      'stripe=PORT_TEST_SECRET',
      '--root',
      root,
    ]);
    expect(r.stderr).toMatch(refusal());
    expect(r.status).toBe(1);
    expect(existsSync(root)).toBe(false);
  });

  it('console: PORT_IN_USE', async () => {
    const root = join(dir, 'console');
    expect(
      (
        await cli([
          'write',
          'notes',
          '--data',
          '{"operation":"note.create","subjectType":"note","subjectId":"n1","fields":{}}',
          '--root',
          root,
        ])
      ).status,
    ).toBe(0);
    const r = await cli(['console', '--port', String(port), '--root', root]);
    expect(r.stderr).toMatch(refusal());
    expect(r.status).toBe(1);
    // The way out the refusal names: --port 0 serves on a free port.
    const free = start(['console', '--port', '0', '--json', '--root', root]);
    const { origin } = JSON.parse((await free.waitFor(/^\{"url".*$/m))[0]) as { origin: string };
    expect(origin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(origin).not.toBe('http://127.0.0.1:0');
    expect((await fetch(`${origin}/api/overview`)).status).toBe(401);
    expect(await free.interrupt()).toBe(0);
  });
});

describe('listenOn, where every server starts', () => {
  it('answers PORT_IN_USE for a taken port, PORT_NOT_PERMITTED for a privileged one', async () => {
    const server = createServer();
    const error: unknown = await listenOn(server, port, '127.0.0.1').catch((e: unknown) => e);
    expect(isTwinError(error, 'PORT_IN_USE')).toBe(true);
    const denied = Object.assign(new Error('listen EACCES'), { code: 'EACCES' });
    const answer = portRefusal(denied, '127.0.0.1', 80);
    expect(isTwinError(answer, 'PORT_NOT_PERMITTED')).toBe(true);
    expect((answer as Error).message).toMatch(/127\.0\.0\.1:80 .* pick a --port of 1024 or more/);
    const other = new Error('something else');
    expect(portRefusal(other, '127.0.0.1', 1)).toBe(other);
  });
});
