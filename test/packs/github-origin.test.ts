// Where the twin's GitHub lives (packs/github/origin.ts): payloads keep GitHub's own URLs until a
// host records its REST base, then every URL field (and no text a user wrote) moves onto it; the
// base is a fact in the log, so a replay renders the same bytes.
import { describe, expect, it } from 'vitest';
import { openWorld, registerPack, replayLines, VirtualClock } from '../../src/index.js';
import * as github from '../../packs/github/index.js';
import { rebase, setGitHubOrigin } from '../../packs/github/origin.js';
import { collect } from '../support/backends.js';

const BASE = 'http://127.0.0.1:4567/github';

async function world() {
  const w = openWorld({
    root: ':memory:',
    clock: new VirtualClock('2026-05-01T12:00:00Z'),
    seed: 'gh-origin',
  });
  const twin = registerPack(w, github.pack);
  await github.createOrganization(twin, { login: 'octo-org' });
  await github.createUser(twin, { login: 'octocat' });
  await github.createRepository(twin, { owner: 'octo-org', name: 'engine' });
  await github.createRepositoryHook(twin, {
    repository: 'octo-org/engine',
    url: 'https://ci.example.com/hook',
    secret: 's',
    events: ['*'],
  });
  const opened = async () =>
    (await twin.list('hook_delivery'))
      .filter((d) => d.fields.eventType === 'issues.opened')
      .map((d) => String(d.fields.body));
  return { w, twin, opened };
}

describe('the GitHub origin', () => {
  it('payloads name api.github.com until a base is recorded, then the base, user text untouched', async () => {
    const { w, twin, opened } = await world();
    const body = 'see https://github.com/octo-org/engine/issues/1 and https://api.github.com/x';
    await github.openIssue(twin, {
      repository: 'octo-org/engine',
      title: 'a',
      body,
      sender: 'octocat',
    });
    const [before] = await opened();
    expect(before).toContain('"url":"https://api.github.com/repos/octo-org/engine/issues/1"');
    const head = await twin.head();
    await setGitHubOrigin(twin, `${BASE}/`);
    await setGitHubOrigin(twin, BASE); // the same base again writes nothing
    expect(await twin.head()).toBe(head + 1);
    await github.openIssue(twin, {
      repository: 'octo-org/engine',
      title: 'b',
      body,
      sender: 'octocat',
    });
    const after = (await opened())
      .map((b) => JSON.parse(b) as Record<string, any>)
      .find((p) => p.issue.title === 'b')!;
    expect(after.issue.url).toBe(`${BASE}/repos/octo-org/engine/issues/2`);
    expect(after.issue.html_url).toBe(`${BASE}/web/octo-org/engine/issues/2`);
    expect(after.sender.avatar_url).toMatch(new RegExp(`^${BASE}/avatars/u/`));
    expect(after.issue.body).toBe(body);
    expect(after.hook).toBeUndefined();
    expect(JSON.stringify(after)).not.toMatch(/"[a-z_]*url":"https:\/\/(api\.)?github\.com/);
    const lines = await collect(twin.exportLines());
    expect((await replayLines(lines)).hash).toBe(await twin.hash());
    await w.close();
  });

  it('rebase keeps key order and user-given URLs; a bad base is a typed refusal', async () => {
    const value = {
      target_url: 'https://github.com/x',
      url: 'https://api.github.com/repos/o/r',
      nested: [{ html_url: 'https://github.com/o/r', text: 'https://github.com/o/r' }],
      git_url: 'git://github.com/o/r.git',
    };
    const moved = rebase(value, BASE) as typeof value;
    expect(Object.keys(moved)).toEqual(Object.keys(value));
    expect(moved).toEqual({
      target_url: 'https://github.com/x',
      url: `${BASE}/repos/o/r`,
      nested: [{ html_url: `${BASE}/web/o/r`, text: 'https://github.com/o/r' }],
      git_url: 'git://github.com/o/r.git',
    });
    expect(rebase(value, undefined)).toBe(value);
    const { w, twin } = await world();
    await expect(setGitHubOrigin(twin, 'ftp://nowhere')).rejects.toMatchObject({
      vendorCode: 'validation_failed',
      path: 'api_url',
    });
    await w.close();
  });
});
