// Every event type each built-in pack lets `twinworld trigger` make, through the CLI in-process:
// with an endpoint that takes every type (`endpoints add` without --events), each trigger
// queues at least one delivery of its own event type to that endpoint — so no trigger's writes
// silently produce some other event. The list of types is docs/cli.md's.
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../support/backends.js';
import { cli } from './in-process.js';

const dir = tempDir('twinworld-trigger-coverage-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Queued {
  id: string;
  pack: string;
  eventType: string;
  endpoint: string;
}

/** Each pack's triggerable types, as docs/cli.md's table lists them (the first run of `a`, `b`, …). */
function readmeTypes(): Record<string, string[]> {
  const readme = readFileSync('docs/cli.md', 'utf8');
  const table = readme.slice(readme.indexOf('The types each pack can trigger:'));
  const out: Record<string, string[]> = {};
  for (const pack of ['stripe', 'github', 'slack', 'standard-webhooks']) {
    const row = new RegExp(`^\\| \`${pack}\`[^|]*\\| (.*) \\|$`, 'm').exec(table)?.[1];
    const list = /((?:`[a-z_.]+`, )+`[a-z_.]+`)/.exec(row ?? '')?.[1];
    if (list === undefined) throw new Error(`docs/cli.md lists no trigger types for ${pack}`);
    out[pack] = list
      .split(', ')
      .map((t) => t.slice(1, -1))
      .sort();
  }
  return out;
}

const EXPECTED = readmeTypes();

describe('trigger --list', () => {
  it('lists exactly the event types docs/cli.md names, with the --data keys each takes', async () => {
    const r = await cli(['trigger', '--list', '--json']);
    expect(r.status).toBe(0);
    const rows = r.json<{ pack: string; eventType: string; data: string[] | 'any' }[]>();
    for (const [pack, types] of Object.entries(EXPECTED))
      expect(rows.filter((row) => row.pack === pack).map((row) => row.eventType)).toEqual(types);
    expect(rows.find((row) => row.eventType === 'customer.created')?.data).toContain('email');
    expect(rows.find((row) => row.pack === 'standard-webhooks')?.data).toBe('any');
    const text = await cli(['trigger', '--list', 'github']);
    expect(text.stdout).toMatch(/^PACK\s+EVENT TYPE\s+--data KEYS\n/);
    expect(text.stdout).toMatch(/github\s+issues\.opened\s+repository, title, body\n/);
  });
});

describe.each(Object.entries(EXPECTED))('every %s trigger', (pack, types) => {
  const root = join(dir, pack);
  let endpoint = '';

  it('registers an endpoint that takes every type', async () => {
    const extra: string[] = [];
    if (pack === 'github') {
      // A hook needs its repository: the first trigger makes the sample one.
      expect((await cli(['trigger', 'github', 'ping', '--root', root])).status).toBe(0);
      extra.push('--repo', 'octo-org/hello-world');
    }
    const r = await cli([
      'endpoints',
      'add',
      pack,
      '--url',
      'http://127.0.0.1:9/hooks',
      ...extra,
      '--root',
      root,
      '--json',
    ]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const added = r.json<{ kind: string; id: string; events: string[] }>();
    endpoint = `${added.kind}/${added.id}`;
  });

  it.each(types)('%s queues a delivery of that type to it', async (type) => {
    const r = await cli(['trigger', pack, type, '--root', root, '--json']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const { queued } = r.json<{ queued: Queued[] }>();
    const own = queued.filter((q) => q.eventType === type);
    expect(own.length).toBeGreaterThan(0);
    // Slack's interactivity and slash commands are the same app's other endpoints.
    const app = endpoint.split('/')[1]!;
    for (const q of own)
      if (pack === 'slack') expect(q.endpoint).toContain(app);
      else expect(q.endpoint).toBe(endpoint);
  });
});
