// Every event the GitHub pack renders, checked against GitHub's published webhook payload schemas
// (@octokit/webhooks-schemas, validated with ajv in strict mode): each event type through its
// scenario, and every event of a pull request's whole life. Zero missing fields, and no field the
// schema does not know (the schemas forbid additional properties).
import { createRequire } from 'node:module';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { openWorld, registerPack, VirtualClock, type Twin } from '../../src/index.js';
import * as github from '../../packs/github/index.js';

const schema = createRequire(import.meta.url)('@octokit/webhooks-schemas') as {
  definitions: Record<string, unknown>;
};
// The schemas package lags GitHub on releases: GitHub's own OpenAPI description (webhooks_release,
// in @octokit/openapi-types) requires `immutable` and `updated_at`, which webhooks-schemas 7.6.1
// does not know yet and its closed objects would refuse. Add them as GitHub documents them.
const release = schema.definitions.release as {
  properties: Record<string, unknown>;
  required: string[];
};
release.properties.immutable = { type: 'boolean' };
release.properties.updated_at = { type: ['string', 'null'], format: 'date-time' };
release.required.push('immutable', 'updated_at');
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => void;
const ajv = new Ajv({ strict: true, allErrors: true });
addFormats(ajv);
ajv.addKeyword('tsAdditionalProperties');
ajv.addSchema(schema, 'octokit');

/** The schema of a kernel event type: "issues.opened" → issues$opened; push and ping → …$event. */
function validatorFor(eventType: string): ValidateFunction {
  const [family, action] = eventType.split('.');
  const name = action === undefined ? `${family}$event` : `${family}$${action}`;
  expect(schema.definitions, `the schemas define ${name}`).toHaveProperty([name]);
  return ajv.getSchema(`octokit#/definitions/${name}`)!;
}

function problems(eventType: string, body: unknown): string[] {
  const validate = validatorFor(eventType);
  if (validate(body)) return [];
  return (validate.errors ?? []).map(
    (e) => `${e.instancePath || '/'} ${e.message ?? ''} ${JSON.stringify(e.params)}`,
  );
}

async function bodies(twin: Twin): Promise<{ eventType: string; body: unknown }[]> {
  const seen = new Set<string>();
  const out: { eventType: string; body: unknown }[] = [];
  for (const d of (await twin.list('hook_delivery')).sort((a, b) => a.version - b.version)) {
    const eventId = String(d.fields.eventId);
    if (seen.has(eventId)) continue;
    seen.add(eventId);
    out.push({ eventType: String(d.fields.eventType), body: JSON.parse(String(d.fields.body)) });
  }
  return out;
}

function world(seed: string) {
  const w = openWorld({ root: ':memory:', clock: new VirtualClock('2026-05-01T12:00:00Z'), seed });
  return { world: w, twin: registerPack(w, github.pack) };
}

describe('github payloads against @octokit/webhooks-schemas', () => {
  for (const eventType of Object.keys(github.scenarios)) {
    it(`${eventType} validates`, async () => {
      const { world: w, twin } = world(`schema-${eventType}`);
      await github.scenarios[eventType]!({
        twin,
        target: { url: 'http://127.0.0.1:9/hooks', secret: 'schema-secret' },
        data: undefined,
      });
      const rendered = (await bodies(twin)).filter((b) => b.eventType === eventType);
      expect(rendered.length).toBeGreaterThan(0);
      for (const { body } of rendered) expect(problems(eventType, body)).toEqual([]);
      await w.close();
    });
  }

  it('the check can fail: a payload missing a field GitHub always sends, or carrying one it never sends, is refused', async () => {
    const { world: w, twin } = world('schema-negative');
    await github.scenarios['issues.opened']!({
      twin,
      target: { url: 'http://127.0.0.1:9/hooks', secret: 's' },
      data: undefined,
    });
    const body = (await bodies(twin)).find((b) => b.eventType === 'issues.opened')!.body as Record<
      string,
      any
    >;
    expect(problems('issues.opened', body)).toEqual([]);
    const { reactions: _r, ...issue } = body.issue;
    const { forks_url: _f, ...repository } = body.repository;
    expect(problems('issues.opened', { ...body, issue }).join('\n')).toMatch(
      /must have required property 'reactions'/,
    );
    expect(problems('issues.opened', { ...body, repository }).join('\n')).toMatch(
      /must have required property 'forks_url'/,
    );
    expect(
      problems('issues.opened', { ...body, sender: { ...body.sender, secret_ref: 'x' } }).join(
        '\n',
      ),
    ).toMatch(/must NOT have additional properties/);
    await w.close();
  });

  it('covers every event type the pack declares', () => {
    expect(Object.keys(github.scenarios).sort()).toEqual([...github.GITHUB_EVENT_TYPES].sort());
  });

  it("every event of a pull request's life validates, with consistent state across events", async () => {
    const { world: w, twin } = world('schema-life');
    await github.createOrganization(twin, { login: 'octo-org' });
    await github.createUser(twin, { login: 'octocat' });
    await github.createUser(twin, { login: 'hubot' });
    await github.createRepository(twin, { owner: 'octo-org', name: 'engine' });
    await github.createApp(twin, { owner: 'octo-org', name: 'Twin CI' });
    await github.createRepositoryHook(twin, {
      repository: 'octo-org/engine',
      url: 'https://ci.example.com/hooks',
      secret: 's',
      events: ['*'],
      sender: 'octocat', // the ping then carries a sender, as a hook made by a user does
    });
    const { pull, release } = await github.pullRequestLife(twin, {
      repository: 'octo-org/engine',
      author: 'octocat',
      reviewer: 'hubot',
      ciApp: 'twin-ci',
    });
    const all = await bodies(twin);
    for (const { eventType, body } of all) expect(problems(eventType, body), eventType).toEqual([]);
    expect(all[0]!.body).toMatchObject({ sender: { login: 'octocat' } });
    expect(all.map((b) => b.eventType)).toEqual([
      'ping',
      'push',
      'pull_request.opened',
      'check_run.created',
      'workflow_run.requested',
      'workflow_run.in_progress',
      'check_run.completed',
      'check_suite.completed',
      'workflow_run.completed',
      'issue_comment.created',
      'push',
      'pull_request.synchronize',
      'check_run.created',
      'workflow_run.requested',
      'workflow_run.in_progress',
      'check_run.completed',
      'check_suite.completed',
      'workflow_run.completed',
      'pull_request.closed',
      'push',
      'release.created',
      'release.published',
      'star.created',
    ]);
    const of = (type: string) =>
      all.filter((b) => b.eventType === type).map((b) => b.body as Record<string, any>);
    const [branchPush, fixPush, mergePush] = of('push');
    const sync = of('pull_request.synchronize')[0]!;
    // synchronize moves the head from the first push's commit to the fix's.
    expect(sync.before).toBe(branchPush!.after);
    expect(sync.after).toBe(fixPush!.after);
    expect(fixPush!.before).toBe(branchPush!.after);
    // The second CI round checks the new head and lists the open pull request.
    const secondRun = of('check_run.completed')[1]!;
    expect(secondRun.check_run.head_sha).toBe(fixPush!.after);
    expect(secondRun.check_run.pull_requests).toEqual([
      expect.objectContaining({
        number: pull.number,
        head: expect.objectContaining({ sha: fixPush!.after }),
      }),
    ]);
    expect(of('check_suite.completed').map((s) => s.check_suite.conclusion)).toEqual([
      'failure',
      'success',
    ]);
    // The merge lands on the base branch as a push of the merge commit.
    const closed = of('pull_request.closed')[0]!;
    expect(closed.pull_request).toMatchObject({
      merged: true,
      merge_commit_sha: mergePush!.after,
      state: 'closed',
    });
    expect(mergePush).toMatchObject({ ref: 'refs/heads/main', created: false });
    expect(of('issue_comment.created')[0]!.issue).toMatchObject({
      number: pull.number,
      comments: 1,
      pull_request: { url: pull.url },
    });
    expect(of('release.published')[0]!.release).toMatchObject({
      id: release.id,
      tag_name: 'v1.0.1',
      target_commitish: 'main',
    });
    expect(of('star.created')[0]!.repository.stargazers_count).toBe(1);
    await w.close();
  });
});
