// The long-running commands (up, work, console) against a PostgreSQL store that cannot answer —
// nothing listening on its port, on 127.0.0.1 — through the built binary: each is refused at start
// with STORE_UNREACHABLE and exit 1. Before, `up` printed the refusal and then kept listening with
// no way out but a signal, `work` logged the error every second until Ctrl-C, and `console` served
// a page whose every request failed.
import { createServer } from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import { start } from '../support/cli-process.js';

/** How long a refused start may take: far above a refusal's few hundred ms, well below a hang. */
const REFUSED_WITHIN_MS = 15_000;

let store: string;

/** A free loopback port with nothing listening on it. */
function closedPort(): Promise<number> {
  return new Promise((done) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const port = (server.address() as { port: number }).port;
      server.close(() => done(port));
    });
  });
}

beforeAll(async () => {
  store = `postgres://app:secret-pw-42@127.0.0.1:${await closedPort()}/twins?world=w`;
});

/** Runs the command; answers its exit status and output once it exits, or fails naming the hang. */
async function refusedStart(args: readonly string[]) {
  const run = start([...args, '--store', store]);
  const exited = new Promise<number | null>((done) => run.child.on('exit', (s) => done(s)));
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'hung'>((done) => {
    timer = setTimeout(() => done('hung'), REFUSED_WITHIN_MS);
  });
  const status = await Promise.race([exited, late]);
  clearTimeout(timer);
  if (status === 'hung') await run.interrupt();
  return { status, stdout: run.stdout(), stderr: run.stderr() };
}

const unreachable = /^error STORE_UNREACHABLE: cannot connect to PostgreSQL at 127\.0\.0\.1:\d+: /;

describe('a store that cannot answer is refused when a long-running command starts', () => {
  it('up exits 1 with STORE_UNREACHABLE instead of listening on after the error', async () => {
    const r = await refusedStart(['up']);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(unreachable);
    expect(r.stdout).not.toContain('listening on');
    expect(r.stderr).not.toContain('secret-pw-42');
  });

  it('work exits 1 with STORE_UNREACHABLE instead of logging it every second', async () => {
    const r = await refusedStart(['work']);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(unreachable);
    expect(r.stderr.match(/STORE_UNREACHABLE/g)).toHaveLength(1);
    expect(r.stdout).not.toContain('working as');
  });

  it('console exits 1 with STORE_UNREACHABLE instead of serving a page that cannot load', async () => {
    const r = await refusedStart(['console']);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(unreachable);
    expect(r.stdout).not.toContain('console for');
  });
});
