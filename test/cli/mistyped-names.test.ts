// A mistyped root or name is an error, not a new world or an empty answer: read commands and the
// worker refuse a missing root (ROOT_NOT_FOUND) and create nothing; a pack, schedule or routine
// that matches nothing is named as such.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cli } from './in-process.js';

const dir = mkdtempSync(join(tmpdir(), 'twinworld-mistyped-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function refusal(stderr: string): { error: string; message: string; path?: string } {
  return JSON.parse(stderr) as { error: string; message: string; path?: string };
}

describe('a mistyped root', () => {
  const commands = [
    ['schedules', 'list'],
    ['schedules', 'inspect', 'nightly'],
    ['schedules', 'history'],
    ['schedules', 'pause', 'nightly'],
    ['schedules', 'prune', '--before', '2026-01-01'],
    ['dispatches', 'list'],
    ['dispatches', 'inspect', 'dsp_1'],
    ['triggers'],
    ['deliveries'],
    ['attempts', 'dlv_1'],
    ['tick'],
    ['recover'],
    ['redeliver', 'dlv_1'],
    ['work', '--until-idle'],
  ];
  it.each(commands)('%s %s fails ROOT_NOT_FOUND and creates nothing', async (...command) => {
    const root = join(dir, 'typo');
    const r = await cli([...command, '--root', root, '--json']);
    expect(r.status).toBe(1);
    expect(r.stdout).toBe('');
    expect(refusal(r.stderr)).toMatchObject({ error: 'ROOT_NOT_FOUND', path: 'root' });
    expect(refusal(r.stderr).message).toContain(root);
    expect(existsSync(root)).toBe(false);
  });
});

describe('names that match nothing', () => {
  const root = join(dir, 'world');

  it('deliveries --pack names no pack: UNKNOWN_PACK listing the packs', async () => {
    expect(
      (await cli(['schedules', 'add', 'nightly', '--cron', '0 3 * * *', '--root', root])).status,
    ).toBe(0);
    const r = await cli(['deliveries', '--pack', 'nopack', '--root', root, '--json']);
    expect(r.status).toBe(1);
    expect(refusal(r.stderr)).toMatchObject({ error: 'UNKNOWN_PACK', path: 'pack' });
    expect(refusal(r.stderr).message).toMatch(
      /^no pack "nopack" sends deliveries; packs: .*stripe/,
    );
    expect((await cli(['deliveries', '--pack', 'stripe', '--root', root])).stdout).toBe(
      'no deliveries\n',
    );
  });

  it('schedules history of an unknown schedule says so; of a known one answers its page', async () => {
    const r = await cli(['schedules', 'history', 'nosuch', '--root', root, '--json']);
    expect(r.status).toBe(1);
    expect(refusal(r.stderr)).toMatchObject({ error: 'UNKNOWN_TRIGGER', path: 'scheduleId' });
    expect(refusal(r.stderr).message).toContain('no schedule "nosuch" for tenant "default"');
    const known = await cli(['schedules', 'history', 'nightly', '--root', root, '--json']);
    expect(known.status).toBe(0);
    expect(known.json()).toMatchObject({ items: [] });
  });

  it('schedules add --routine takes only a routine the workers run', async () => {
    const r = await cli([
      'schedules',
      'add',
      'odd',
      '--cron',
      '0 3 * * *',
      '--routine',
      'nope',
      '--root',
      root,
      '--json',
    ]);
    expect(r.status).toBe(1);
    expect(refusal(r.stderr)).toMatchObject({ error: 'UNKNOWN_ROUTINE', path: 'routine' });
    expect(refusal(r.stderr).message).toContain('they run record, wait');
    const list = await cli(['schedules', 'list', '--root', root, '--json']);
    expect(list.json<{ items: { scheduleId: string }[] }>().items.map((s) => s.scheduleId)).toEqual(
      ['nightly'],
    );
    const wait = await cli([
      'schedules',
      'add',
      'nap',
      '--cron',
      '0 4 * * *',
      '--routine',
      'wait',
      '--input',
      '{"ms":1}',
      '--root',
      root,
    ]);
    expect(wait.status).toBe(0);
  });
});
