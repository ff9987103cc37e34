// An index declared with `fold: "lower"` keeps its keys in lower case and lowers the key a lookup
// asks for, so a resource is found whatever the case asked (GitHub's logins and repository
// names). Run on every backend: the store keeps the folded keys; the view folds the asked one.
import { afterEach, describe, expect, it } from 'vitest';
import { commit } from '../../src/world/decision.js';
import { openWorld, type World } from '../../src/world/world.js';
import { backends } from '../support/backends.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const byLogin = { type: 'user', name: 'login', field: 'login' };
const folded = { ...byLogin, fold: 'lower' as const };

const user = (login: string) => ({
  operation: 'user.create',
  subjectType: 'user',
  subjectId: `u_${login}`,
  fields: { login },
});

const found = (world: World, login: string): Promise<string[]> =>
  world
    .twin('github')
    .lookup('user', 'login', login)
    .then((rs) => rs.map((r) => r.id));

describe.each(backends)('a folded index on $name', (b) => {
  it('finds a resource whatever the case asked, committed or staged in the same decide', async () => {
    const home = b.create();
    cleanups.push(home.cleanup);
    const world = openWorld({ root: ':memory:', backend: home.backend });
    cleanups.push(() => world.close());
    const twin = world.twin('github');
    twin.declareIndex(folded);
    await twin.applyWrite(user('OctoCat'));
    for (const asked of ['OctoCat', 'octocat', 'OCTOCAT'])
      expect(await found(world, asked), asked).toEqual(['u_OctoCat']);
    expect(await found(world, 'octo-cat')).toEqual([]);
    // a decide sees what it staged under the folded key, and the value keeps its case
    const seen = await twin.applyAtomic((view) =>
      commit(
        user('Hubot'),
        view.lookup('user', 'login', 'HUBOT').map((r) => r.fields.login),
      ),
    );
    expect(seen.result).toEqual([]);
    const again = await twin.applyAtomic((view) => {
      const before = view.lookup('user', 'login', 'monalisa').length;
      return commit(user('MonaLisa'), [
        before,
        ...view.lookup('user', 'login', 'hubot').map((r) => r.fields.login),
      ]);
    });
    expect(again.result).toEqual([0, 'Hubot']);
    expect(await found(world, 'MONALISA')).toEqual(['u_MonaLisa']);
  });

  it('a plain index declared again folded is built again, and a later opener adopts it', async () => {
    if (!b.durable) return;
    const home = b.create();
    cleanups.push(home.cleanup);
    // a world written by a version that declared the index plain
    const first = openWorld({ root: ':memory:', backend: home.backend });
    first.twin('github').declareIndex(byLogin);
    await first.twin('github').applyWrite(user('OctoCat'));
    expect(await found(first, 'octocat')).toEqual([]);
    // the same process declaring it folded: its keys are built again
    first.twin('github').declareIndex(folded);
    expect(await found(first, 'octocat')).toEqual(['u_OctoCat']);
    await first.close();
    // opened without declaring it: the stored declaration is folded, and so are its lookups
    const second = openWorld({ root: ':memory:', backend: home.reopen() });
    cleanups.push(() => second.close());
    await second.twin('github').applyWrite(user('Hubot'));
    expect(await found(second, 'HUBOT')).toEqual(['u_Hubot']);
    expect(await found(second, 'OCTOCAT')).toEqual(['u_OctoCat']);
  });

  it('a world written with the plain index, opened by a version that folds it, finds old rows', async () => {
    if (!b.durable) return;
    const home = b.create();
    cleanups.push(home.cleanup);
    const old = openWorld({ root: ':memory:', backend: home.backend });
    old.twin('github').declareIndex(byLogin);
    await old.twin('github').applyWrite(user('OctoCat'));
    await old.close();
    const upgraded = openWorld({ root: ':memory:', backend: home.reopen() });
    cleanups.push(() => upgraded.close());
    upgraded.twin('github').declareIndex(folded);
    expect(await found(upgraded, 'octocat')).toEqual(['u_OctoCat']);
  });

  it('refuses a fold other than "lower", and a folded ordered index', () => {
    const world = openWorld({ root: ':memory:' });
    cleanups.push(() => world.close());
    const twin = world.twin('github');
    expect(() => twin.declareIndex({ ...byLogin, fold: 'upper' as never })).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT', path: 'index.fold' }),
    );
    expect(() => twin.declareIndex({ ...folded, orderBy: 'created' })).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT', path: 'index.fold' }),
    );
  });
});
