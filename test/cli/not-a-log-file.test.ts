// A file that is no UTF-8 JSONL log, given to the real binary's `replay` and `import` (a file or
// stdin): a twin's database, a gzip-compressed export and UTF-16 text (PowerShell 5's `>`) are
// refused as what they are, before any world opens; a UTF-8 byte order mark is no part of the
// first entry, so a log that carries one replays and imports to the hash it has without.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../support/backends.js';
import { BIN } from '../support/cli-process.js';

const dir = tempDir('twinworld-not-a-log-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function tw(args: string[], input: string | Buffer = '') {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    encoding: 'utf8',
    input,
    timeout: 60_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** One twin's log, "crm". */
const LOG = join('fixtures', 'crm.jsonl');
let hash: string;
let source: string;

beforeAll(() => {
  const replayed = tw(['replay', LOG, '--json']);
  expect(replayed.status).toBe(0);
  hash = JSON.parse(replayed.stdout).hash;
  source = join(dir, 'source');
  expect(tw(['import', 'crm', LOG, '--root', source]).status).toBe(0);
});

describe('a file that is no UTF-8 JSONL log', () => {
  it('is refused as what it is — a database, gzip, UTF-16 — by replay and import, file or stdin', () => {
    const text = readFileSync(LOG, 'utf8');
    const cases: [string, Buffer, RegExp][] = [
      [
        'twin.db',
        readFileSync(join(source, 'twins', 'crm.db')),
        /is a SQLite database \(a twin's \.db file\), not a log; write the twin's log with `twinworld export/,
      ],
      ['log.jsonl.gz', gzipSync(text), /is gzip-compressed; decompress it first/],
      [
        'utf16.jsonl',
        Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]),
        /is UTF-16 text .*not UTF-8/,
      ],
    ];
    for (const [name, bytes, why] of cases) {
      const file = join(dir, name);
      writeFileSync(file, bytes);
      const root = join(dir, `root-${name}`);
      // Was: IMPORT_MALFORMED_LINE "line 1: it is not valid JSON (Unexpected token …)".
      for (const [args, input, shown] of [
        [['replay', file], '', file],
        [['import', 'crm', file, '--root', root], '', file],
        [['replay', '-'], bytes, 'stdin'],
      ] as const) {
        const r = tw([...args, '--json'], input);
        expect(r.status, `${args.join(' ')}: ${r.stderr}`).toBe(1);
        const error = JSON.parse(r.stderr);
        expect(error).toMatchObject({ error: 'LOG_FILE_UNREADABLE', path: 'file' });
        expect(error.message.startsWith(`${shown}: `)).toBe(true);
        expect(error.message).toMatch(why);
      }
      expect(existsSync(root)).toBe(false);
    }
  });

  it('a UTF-8 byte order mark is dropped: the log replays and imports to its own hash', () => {
    const file = join(dir, 'bom.jsonl');
    writeFileSync(file, `\ufeff${readFileSync(LOG, 'utf8')}`);
    // Was: IMPORT_MALFORMED_LINE "line 1: it is not valid JSON (Unexpected token '﻿' …)".
    const replayed = tw(['replay', file, '--json']);
    expect(replayed.stderr).toBe('');
    expect(JSON.parse(replayed.stdout).hash).toBe(hash);
    const imported = tw(['import', 'crm', file, '--root', join(dir, 'bom-root'), '--json']);
    expect(imported.stderr).toBe('');
    expect(JSON.parse(imported.stdout).hash).toBe(hash);
    const piped = tw(
      ['import', 'crm', '-', '--root', join(dir, 'bom-stdin'), '--json'],
      readFileSync(file),
    );
    expect(JSON.parse(piped.stdout).hash).toBe(hash);
  });
  it('an empty log is taken (the empty state), with a note that it may be a failed export', () => {
    const file = join(dir, 'empty.jsonl');
    writeFileSync(file, '\n');
    const note = `note: ${file} holds no entries; if it was written by \`twinworld export <twin> > FILE\``;
    // Was: the empty state's hash, or an empty twin, without a word.
    const replayed = tw(['replay', file]);
    expect(replayed.status).toBe(0);
    expect(replayed.stderr).toContain(note);
    const imported = tw(['import', 'crm', file, '--root', join(dir, 'empty-root'), '--json']);
    expect(imported.status).toBe(0);
    expect(imported.stderr).toContain(note);
    expect(JSON.parse(imported.stdout)).toMatchObject({ appended: 0, head: 0 });
    expect(tw(['replay', '-'], '').stderr).toContain('note: stdin holds no entries');
    expect(tw(['replay', LOG]).stderr).toBe('');
  });
});
