// The public surface stays small and cheap to import: the root entry names at most 60 exports,
// every subpath entry is capped too and names what it exports (no `export *`), loading the root
// does not load the SQLite driver, and every subpath in package.json resolves.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');

function runNode(script: string): string {
  const out = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: root,
    encoding: 'utf8',
  });
  if (out.status !== 0) throw new Error(out.stderr);
  return out.stdout.trim();
}

const driverLoaded = `
import { createRequire } from 'node:module';
const loaded = () => Object.keys(createRequire(import.meta.url).cache).some((f) => f.includes('better-sqlite3'));`;

describe('entry points', () => {
  it('the root entry exports at most 60 names', async () => {
    const names = Object.keys(await import('../../src/index.js'));
    // Type-only exports vanish at runtime; count them from the source too.
    const source = readFileSync(resolve(root, 'src/index.ts'), 'utf8');
    const declared = [...source.matchAll(/export (?:type )?\{([^}]*)\}/g)].flatMap((m) =>
      m[1]!.split(',').filter((n) => n.trim() !== ''),
    );
    expect(names.length).toBeLessThanOrEqual(declared.length);
    expect(declared.length).toBeLessThanOrEqual(60);
  });

  // Caps per subpath: room for what is planned, not for everything. Raise one only on purpose.
  const caps: Record<string, number> = {
    './signing': 20,
    './triggers': 105,
    './schedules': 55,
    './deferred': 40,
    './walk': 60,
    './host': 70,
    './sqlite': 5,
    './postgres': 10,
    './testing': 20,
    './packs': 20,
    './child-runner': 10,
  };
  const pkg = JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8')) as {
    exports: Record<string, { default: string }>;
  };
  const sourceOf = (subpath: string): string =>
    pkg.exports[subpath]!.default.replace('./dist/', '').replace(/[.]js$/, '.ts');

  it('every subpath entry has a cap', () => {
    expect(
      Object.keys(pkg.exports)
        .filter((k) => k !== '.')
        .sort(),
    ).toEqual(Object.keys(caps).sort());
  });

  it.each(Object.entries(caps))(
    '%s names its exports (no export *) and has at most %i',
    (subpath, cap) => {
      const source = readFileSync(resolve(root, sourceOf(subpath)), 'utf8');
      // `export * as name` is one named export (a namespace); a bare `export *` names nothing.
      expect(source).not.toMatch(/export \*(?! as )/);
      const declared = [...source.matchAll(/export (?:type )?\{([^}]*)\}/g)].flatMap((m) =>
        m[1]!.split(',').filter((n) => n.trim() !== ''),
      );
      const namespaces = [...source.matchAll(/export \* as /g)].length;
      expect(declared.length + namespaces).toBeGreaterThan(0);
      expect(declared.length + namespaces).toBeLessThanOrEqual(cap);
    },
  );

  it('importing twinworld does not load better-sqlite3 until a SQLite world opens a twin', () => {
    const out = runNode(`${driverLoaded}
      const tw = await import('./dist/src/index.js');
      const before = loaded();
      const mem = tw.openWorld({ root: ':memory:' }); await mem.twin('t').head(); await mem.close();
      const afterMemory = loaded();
      const { mkdtempSync } = await import('node:fs');
      const { tmpdir } = await import('node:os');
      const w = tw.openWorld({ root: mkdtempSync(tmpdir() + '/tw-lazy-') }); await w.twin('t').head();
      console.log(JSON.stringify({ before, afterMemory, afterSqlite: loaded() }));
      await w.close();`);
    expect(JSON.parse(out)).toEqual({ before: false, afterMemory: false, afterSqlite: true });
  });

  it('every subpath export in package.json resolves to a module', () => {
    const pkg = JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8')) as {
      exports: Record<string, { default: string }>;
    };
    const specs = Object.keys(pkg.exports).map((k) =>
      k === '.' ? 'twinworld' : `twinworld/${k.slice(2)}`,
    );
    const out = runNode(
      `for (const s of ${JSON.stringify(specs)}) { const m = await import(s); if (Object.keys(m).length === 0) throw new Error(s + ' is empty'); } console.log('ok');`,
    );
    expect(out).toBe('ok');
  });
});
