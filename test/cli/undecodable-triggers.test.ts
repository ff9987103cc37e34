// `twinworld triggers` names a stored row it cannot read by its type and id, and says which field
// leaves the expected shape — never a JavaScript message such as "Cannot read properties of …".
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cli } from './in-process.js';

const dir = mkdtempSync(join(tmpdir(), 'twinworld-undecodable-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('undecodable trigger rows', () => {
  it('are each named with type, id and the field at fault; the listing goes on', async () => {
    const root = join(dir, 'w');
    const shapes: [string, Record<string, unknown>, string][] = [
      [
        'trg_1',
        { state: 'triggered', envelope: 'not' },
        'envelope.tenantId is missing: envelope is "not", not an object',
      ],
      [
        'trg_2',
        { state: 'triggered', envelope: null },
        'envelope.tenantId is missing: envelope is null, not an object',
      ],
      [
        'trg_3',
        { state: 'triggered', envelope: { tenantId: 'acme' } },
        'envelope.source.kind is missing: envelope.source is absent, not an object',
      ],
      [
        'trg_4',
        { state: 'triggered' },
        'envelope.tenantId is missing: envelope is absent, not an object',
      ],
    ];
    for (const [id, fields] of shapes) {
      const w = await cli([
        'write',
        'triggers',
        '--root',
        root,
        '-d',
        JSON.stringify({
          operation: 'trigger.receive',
          subjectType: 'trigger_record',
          subjectId: id,
          fields,
        }),
      ]);
      expect(w.status).toBe(0);
    }
    const r = await cli(['triggers', '--root', root]);
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('no trigger records\n');
    expect(r.stderr).toBe(
      shapes
        .map(([id, , why]) => `skipped trigger_record ${id}: cannot be read (${why})\n`)
        .join(''),
    );
    expect(r.stderr).not.toMatch(/Cannot read properties|TypeError/);
  });
});
