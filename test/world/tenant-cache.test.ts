// A tenant-scoped section sees what the store shows that tenant, never a row another section
// left in the process cache: on PostgreSQL, row-level security is the boundary, and the kernel's
// cache must not step around it.
import { describe, expect, it } from 'vitest';
import { openWorld } from '../../src/world/world.js';
import { PostgresBackend } from '../../src/storage/postgres/index.js';
import { postgresUrl } from '../storage/postgres-url.js';

describe('tenant-scoped reads and the process cache', () => {
  it("a section scoped to A never gets B's row from the cache a kernel-wide read filled", async () => {
    const world = openWorld({
      root: ':memory:',
      backend: new PostgresBackend(postgresUrl(), `tenant_cache_${process.pid}`),
    });
    const twin = world.twin('t');
    await twin.applyWrite({
      operation: 'record.create',
      subjectType: 'record',
      subjectId: 'r_b',
      fields: { tenantId: 'B', secret: 'b' },
    });
    // kernel-wide: sees it, and caches it
    expect((await twin.get('record', 'r_b'))?.fields.secret).toBe('b');
    expect(await twin.read((view) => view.get('record', 'r_b'), { tenant: 'A' })).toBeUndefined();
    expect(
      (await twin.read((view) => view.get('record', 'r_b'), { tenant: 'B' }))?.fields.secret,
    ).toBe('b');
    // a decide scoped to A does not see it either
    const seen = await twin.applyAtomic(
      (view) => ({ kind: 'skip' as const, result: view.get('record', 'r_b') }),
      { tenant: 'A' },
    );
    expect(seen.result).toBeUndefined();
    await world.close();
  });
});
