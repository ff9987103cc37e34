// `twinworld endpoints` and `twinworld trigger` through the CLI in-process: what each refuses
// (before any world is opened where the input alone is wrong), and the endpoint life — add,
// list, disable, enable, remove — as triggers see it, for every built-in pack.
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openWorld } from '../../src/index.js';
import { tempDir } from '../support/backends.js';
import { tw } from '../support/cli-process.js';
import { cli } from './in-process.js';

const dir = tempDir('twinworld-endpoints-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const fresh = () => join(dir, `w${++n}`);
const URL_ = 'http://127.0.0.1:9/hooks';

interface Queued {
  id: string;
  eventType: string;
  endpoint: string;
}

async function queued(args: string[]): Promise<Queued[]> {
  const r = await cli([...args, '--json']);
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  return r.json<{ queued: Queued[] }>().queued;
}

async function secretsOf(root: string, ref: string): Promise<string[]> {
  const world = openWorld({ root, create: false });
  try {
    return await world.secrets.resolve(ref, Date.now());
  } finally {
    await world.close();
  }
}

describe('refusals: the input alone is wrong, so no world is opened or created', () => {
  it('an unknown pack, naming the valid ones', async () => {
    const root = fresh();
    for (const args of [
      ['endpoints', 'add', 'acme', '--url', URL_],
      ['trigger', 'acme', 'note.created'],
      ['trigger', '--list', 'acme'],
    ]) {
      const r = await cli([...args, '--root', root]);
      expect(r.status).toBe(1);
      expect(r.stderr).toBe(
        'error UNKNOWN_PACK: unknown pack "acme"; valid packs: github, slack, standard-webhooks, stripe (at pack)\n',
      );
    }
    const j = await cli(['trigger', 'acme', 'x', '--root', root, '--json']);
    expect(JSON.parse(j.stderr)).toMatchObject({
      error: 'UNKNOWN_PACK',
      path: 'pack',
      details: { valid: ['github', 'slack', 'standard-webhooks', 'stripe'] },
    });
    expect(existsSync(root)).toBe(false);
  });

  it('an event type the pack cannot trigger, naming the valid ones', async () => {
    const root = fresh();
    const r = await cli(['trigger', 'stripe', 'customer.exploded', '--root', root]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(
      /^error UNKNOWN_EVENT_TYPE: pack "stripe" cannot trigger "customer\.exploded"; valid event types: (?:.*, )?charge\.dispute\.created, .*customer\.created, .*product\.created\b.* \(at eventType\)\n$/,
    );
    // url_verification is what setting a Request URL sends; no trigger makes it.
    const slack = await cli(['trigger', 'slack', 'url_verification', '--root', root, '--json']);
    expect(JSON.parse(slack.stderr)).toMatchObject({
      error: 'UNKNOWN_EVENT_TYPE',
      details: { pack: 'slack', valid: expect.arrayContaining(['message', 'app_mention']) },
    });
    expect(existsSync(root)).toBe(false);
  });

  it('a URL that is not http(s), holds a line break or is too long: a usage error', async () => {
    const root = fresh();
    for (const url of ['not a url', 'ftp://127.0.0.1/hooks', '']) {
      const r = await cli(['endpoints', 'add', 'stripe', `--url=${url}`, '--root', root]);
      expect(r.status).toBe(2);
      expect(r.stderr).toBe(
        `error USAGE: --url must be an http(s) URL such as http://127.0.0.1:3000/webhooks, got "${url}"; see \`twinworld endpoints --help\`\n`,
      );
    }
    for (const url of ['http://127.0.0.1/a\r\nX-Evil: 1', 'http://127.0.0.1/a\nb']) {
      const r = await cli(['endpoints', 'add', 'stripe', '--url', url, '--root', root]);
      expect(r.status).toBe(2);
      expect(r.stderr).toMatch(/^error USAGE: --url must not hold a line break \(CR or LF\)/);
    }
    const long = `http://127.0.0.1/${'a'.repeat(2048)}`;
    const tooLong = await cli(['endpoints', 'add', 'stripe', '--url', long, '--root', root]);
    expect(tooLong.status).toBe(2);
    expect(tooLong.stderr).toMatch(/^error USAGE: --url is 2065 characters, over the 2048/);
    const missing = await cli(['endpoints', 'add', 'stripe', '--root', root]);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(
      /^error USAGE: endpoints add needs --url URL; see `twinworld endpoints --help`\n$/,
    );
    expect(existsSync(root)).toBe(false);
  });

  it('a --secret with a line break: a usage error that does not show it', async () => {
    const root = fresh();
    const secret = 'whsec_pasted\nwith its line break';
    const r = await cli([
      'endpoints',
      'add',
      'stripe',
      '--url',
      URL_,
      '--secret',
      secret,
      '--root',
      root,
    ]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(
      /^error USAGE: --secret holds a line break \(the value is not shown\)/,
    );
    expect(r.stderr).not.toContain('pasted');
    expect(existsSync(root)).toBe(false);
  });

  it('--events naming a type twice keeps it once', async () => {
    const root = fresh();
    const r = await cli([
      'endpoints',
      'add',
      'stripe',
      '--url',
      URL_,
      '--events',
      'customer.created,customer.created',
      '--root',
      root,
      '--json',
    ]);
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout).events).toEqual(['customer.created']);
  });

  it('a --count that is not a positive integer', async () => {
    const root = fresh();
    for (const count of ['0', 'abc', '1.5', '-1', '']) {
      const r = await cli([
        'trigger',
        'stripe',
        'customer.created',
        `--count=${count}`,
        '--root',
        root,
      ]);
      expect(r.status).toBe(2);
      expect(r.stderr).toMatch(/^error USAGE: --count must be an integer 1–10000, got ".*"; see/);
    }
    expect(existsSync(root)).toBe(false);
  });

  it('--data that is not JSON, not an object, or holds a key the trigger does not take', async () => {
    const root = fresh();
    const run = (eventType: string, data: string) =>
      cli(['trigger', 'stripe', eventType, '--data', data, '--root', root]);
    const notJson = await run('customer.created', '{"email":');
    expect(notJson.status).toBe(2);
    expect(notJson.stderr).toMatch(
      /^error USAGE: --data is not valid JSON \(.*\); pass e\.g\. '\{/,
    );
    const array = await run('customer.created', '[1]');
    expect(array.status).toBe(2);
    expect(array.stderr).toMatch(/^error USAGE: --data must be a JSON object .*got an array; see/);
    const unknown = await run('customer.created', '{"nickname":"ada"}');
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toBe(
      'error INVALID_ARGUMENT: --data key "nickname" is not taken by stripe customer.created; it takes: email, name, description, phone, metadata, invoice_settings (at data.nickname)\n',
    );
    const none = await run('customer.subscription.deleted', '{"reason":"x"}');
    expect(none.stderr).toMatch(/it takes no --data \(at data\.reason\)\n$/);
    expect(existsSync(root)).toBe(false);
  });

  it('pack options given to the wrong pack or action, and unknown actions', async () => {
    const root = fresh();
    const stripeRepo = await cli([
      'endpoints',
      'add',
      'stripe',
      '--url',
      URL_,
      '--repo',
      'a/b',
      '--root',
      root,
    ]);
    expect(stripeRepo.status).toBe(2);
    expect(stripeRepo.stderr).toMatch(
      /^error USAGE: --repo is not an option of stripe endpoints; see `twinworld endpoints --help`\n$/,
    );
    const slackOrg = await cli([
      'endpoints',
      'add',
      'slack',
      '--url',
      URL_,
      '--org',
      'x',
      '--root',
      root,
    ]);
    expect(slackOrg.stderr).toMatch(
      /^error USAGE: --org is not an option of slack endpoints; slack takes --team; see `twinworld endpoints --help`\n$/,
    );
    const listUrl = await cli(['endpoints', 'list', '--url', URL_, '--root', root]);
    expect(listUrl.stderr).toMatch(
      /^error USAGE: --url is only for endpoints add; see `twinworld endpoints --help`\n$/,
    );
    const action = await cli(['endpoints', 'create', 'stripe', '--root', root]);
    expect(action.status).toBe(2);
    expect(action.stderr).toMatch(
      /^error USAGE: unknown action "create"; use one of add, list, disable, enable, remove; see `twinworld endpoints --help`\n$/,
    );
    expect(existsSync(root)).toBe(false);
  });

  it('the pack given as --pack to add or list is told it is the <pack> argument (the binary)', async () => {
    const root = fresh();
    for (const [action, ...rest] of [['add', '--url', URL_], ['list']]) {
      const r = await tw(['endpoints', action!, '--pack', 'stripe', ...rest, '--root', root]);
      expect(r.status).toBe(2);
      expect(r.stderr).toBe(
        `error USAGE: endpoints ${action} takes the pack as <pack>, not --pack; see \`twinworld endpoints --help\`\n`,
      );
    }
    expect(existsSync(root)).toBe(false);
  });
});

describe('refusals that need the world', () => {
  it('disabling, enabling or removing an endpoint nobody registered', async () => {
    const root = fresh();
    const gone = await cli(['endpoints', 'disable', 'we_nope', '--root', root]);
    expect(gone.status).toBe(1);
    expect(gone.stderr).toMatch(/^error ROOT_NOT_FOUND: /);
    await cli(['endpoints', 'add', 'stripe', '--url', URL_, '--root', root]);
    for (const action of ['disable', 'enable', 'remove']) {
      const r = await cli(['endpoints', action, 'we_nope', '--root', root]);
      expect(r.status).toBe(1);
      expect(r.stderr).toBe(
        'error UNKNOWN_ENDPOINT: no endpoint we_nope; list them with `twinworld endpoints list` (at endpoint)\n',
      );
    }
    const wrongPack = await cli([
      'endpoints',
      'disable',
      'we_nope',
      '--pack',
      'github',
      '--root',
      root,
      '--json',
    ]);
    expect(JSON.parse(wrongPack.stderr)).toMatchObject({
      error: 'UNKNOWN_ENDPOINT',
      path: 'endpoint',
    });
  });

  it('event filters the vendor refuses, before anything is registered', async () => {
    const root = fresh();
    const stripe = await cli([
      'endpoints',
      'add',
      'stripe',
      '--url',
      URL_,
      '--events',
      'customer.exploded',
      '--root',
      root,
    ]);
    expect(stripe.status).toBe(1);
    expect(stripe.stderr).toMatch(
      /^error INVALID_ARGUMENT: stripe: enabled_events holds "customer\.exploded", which this twin does not send; use "\*" or one of: .* \(at enabled_events\)\n$/,
    );
    const slack = await cli([
      'endpoints',
      'add',
      'slack',
      '--url',
      URL_,
      '--events',
      'message',
      '--root',
      root,
    ]);
    expect(slack.stderr).toMatch(
      /^error INVALID_ARGUMENT: slack: invalid_event: bot event "message" is not sent by this twin; use "\*" or message\.channels, app_mention, .* \(at events\)\n$/,
    );
    const sw = await cli([
      'endpoints',
      'add',
      'standard-webhooks',
      '--url',
      URL_,
      '--events',
      'contact.exploded',
      '--root',
      root,
    ]);
    expect(sw.stderr).toMatch(
      /filterTypes holds "contact\.exploded", which this sender does not declare/,
    );
    const badSecret = await cli([
      'endpoints',
      'add',
      'standard-webhooks',
      '--url',
      URL_,
      '--secret',
      'whsec_!!',
      '--root',
      root,
    ]);
    expect(badSecret.status).toBe(1);
    expect(badSecret.stderr).not.toContain('whsec_!!');
    expect((await cli(['endpoints', 'list', '--root', root])).stdout).toBe('no endpoints\n');
    // Slack checks before it makes a workspace for the app: none was made.
    const world = openWorld({ root, create: false });
    try {
      expect(await world.twin('slack').list('team')).toEqual([]);
    } finally {
      await world.close();
    }
  });

  it('a GitHub hook needs an existing repository or organization, and says how to make one', async () => {
    const root = fresh();
    const neither = await cli(['endpoints', 'add', 'github', '--url', URL_, '--root', root]);
    expect(neither.status).toBe(1);
    expect(neither.stderr).toMatch(/give exactly one \(at repo\)\n$/);
    const both = await cli([
      'endpoints',
      'add',
      'github',
      '--url',
      URL_,
      '--repo',
      'a/b',
      '--org',
      'a',
      '--root',
      root,
    ]);
    expect(both.stderr).toMatch(/give exactly one \(at repo\)\n$/);
    const absent = await cli([
      'endpoints',
      'add',
      'github',
      '--url',
      URL_,
      '--repo',
      'octo-org/hello-world',
      '--root',
      root,
    ]);
    expect(absent.status).toBe(1);
    expect(absent.stderr).toMatch(
      /^error INVALID_ARGUMENT: github: Not Found: repository octo-org\/hello-world: a hook is added to a repository that exists\. `twinworld trigger github ping` makes the twin's sample repository/,
    );
    const org = await cli([
      'endpoints',
      'add',
      'github',
      '--url',
      URL_,
      '--org',
      'octo-org',
      '--root',
      root,
    ]);
    expect(org.stderr).toMatch(/Not Found: organization octo-org: .* \(at org\)\n$/);
    // As told: a trigger makes the sample repository; then the hook is added, and pinged.
    expect(await queued(['trigger', 'github', 'ping', '--root', root])).toEqual([]);
    const added = await cli([
      'endpoints',
      'add',
      'github',
      '--url',
      URL_,
      '--repo',
      'octo-org/hello-world',
      '--root',
      root,
      '--json',
    ]);
    expect(added.status).toBe(0);
    const hook = added.json<{ id: string; secret: string; queued: Queued[]; scope: string }>();
    expect(hook.scope).toBe('octo-org/hello-world');
    expect(hook.secret).toMatch(/^[0-9a-f]{40}$/);
    expect(hook.queued).toEqual([
      {
        id: expect.stringMatching(/^dlv_/),
        pack: 'github',
        eventType: 'ping',
        endpoint: `repository_hook/${hook.id}`,
      },
    ]);
    const orgHook = await cli([
      'endpoints',
      'add',
      'github',
      '--url',
      URL_,
      '--org',
      'octo-org',
      '--events',
      'issues',
      '--root',
      root,
      '--json',
    ]);
    expect(orgHook.json()).toMatchObject({
      kind: 'organization_hook',
      scope: 'octo-org',
      events: ['issues'],
    });
    // A trigger on a repository the world lacks is refused, and so is a malformed one.
    const other = await cli([
      'trigger',
      'github',
      'push',
      '--data',
      '{"repository":"a/b"}',
      '--root',
      root,
    ]);
    expect(other.stderr).toMatch(
      /Not Found: repository a\/b: a trigger acts on a repository that exists\. .* \(at data\.repository\)\n$/,
    );
    const bad = await cli([
      'trigger',
      'github',
      'push',
      '--data',
      '{"repository":5}',
      '--root',
      root,
    ]);
    expect(bad.stderr).toMatch(
      /repository must be a full name, owner\/name \(at data\.repository\)\n$/,
    );
    // Both hooks take an issue of the organization's repository.
    const issue = await queued([
      'trigger',
      'github',
      'issues.opened',
      '--data',
      '{"title":"Crash on start"}',
      '--root',
      root,
    ]);
    expect(issue.map((q) => q.endpoint.split('/')[0]).sort()).toEqual([
      'organization_hook',
      'repository_hook',
    ]);
  });

  it('a Slack trigger with no app that takes the event says how to add one', async () => {
    const root = fresh();
    const r = await cli(['trigger', 'slack', 'message', '--root', root]);
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(
      'error INVALID_ARGUMENT: slack: app_not_found: no enabled Slack app in this world takes message; add one with `twinworld endpoints add slack --url URL` (or enable it) (at eventType)\n',
    );
    const team = await cli([
      'endpoints',
      'add',
      'slack',
      '--url',
      URL_,
      '--team',
      'TNOPE',
      '--root',
      root,
    ]);
    expect(team.stderr).toMatch(/team_not_found: no workspace TNOPE; leave --team out/);
    await cli([
      'endpoints',
      'add',
      'slack',
      '--url',
      URL_,
      '--events',
      'app_mention',
      '--root',
      root,
    ]);
    const notTaken = await cli(['trigger', 'slack', 'reaction_added', '--root', root]);
    expect(notTaken.stderr).toMatch(/no enabled Slack app in this world takes reaction_added/);
  });

  it('a value the vendor refuses: refused the vendor way, and nothing is queued', async () => {
    const root = fresh();
    await cli(['endpoints', 'add', 'stripe', '--url', URL_, '--root', root]);
    const r = await cli([
      'trigger',
      'stripe',
      'customer.created',
      '--data',
      '{"email":5}',
      '--root',
      root,
    ]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(
      /^error INVALID_ARGUMENT: stripe: email must be a string when given \(at email\)\n$/,
    );
    expect((await cli(['deliveries', '--root', root])).stdout).toBe('no deliveries\n');
  });
});

describe('a trigger refused on a later run', () => {
  it('says what the earlier runs queued (it stays queued) beside the refusal', async () => {
    const root = fresh();
    await cli(['trigger', 'github', 'ping', '--root', root]);
    await cli([
      'endpoints',
      'add',
      'github',
      '--url',
      URL_,
      '--repo',
      'octo-org/hello-world',
      '--events',
      'release',
      '--root',
      root,
    ]);
    // GitHub refuses a second release of one tag: the second run fails.
    const args = [
      'trigger',
      'github',
      'release.published',
      '--count',
      '3',
      '--data',
      '{"tag_name":"v9.0.0"}',
      '--root',
      root,
    ];
    const r = await cli(args);
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(
      'error INVALID_ARGUMENT: github: Validation Failed: tag_name "v9.0.0" already has a release (at tag_name)\n',
    );
    const [line] = r.stdout.split('\n');
    expect(line).toMatch(
      /^github release\.published: stopped at run 2 of 3; 2 queued before it: dlv_\w+, dlv_\w+$/,
    );
    // Refused on its first run, nothing was queued and nothing is printed but the refusal.
    const first = await cli([...args, '--json']);
    expect([first.status, first.stdout]).toEqual([1, '']);
    const j = await cli([
      ...args.slice(0, -4),
      '--data',
      '{"tag_name":"v9.1.0"}',
      '--root',
      root,
      '--json',
    ]);
    expect(j.status).toBe(1);
    expect(j.json()).toMatchObject({
      stoppedAtRun: 2,
      queued: [{ eventType: 'release.created' }, { eventType: 'release.published' }],
    });
    const pending = (await cli(['deliveries', '--state', 'queued', '--root', root, '--json'])).json<
      { eventType: string }[]
    >();
    expect(pending.filter((d) => d.eventType.startsWith('release.'))).toHaveLength(4);
  });
});

describe('an empty or absent event filter takes every event type', () => {
  it.each([
    ['stripe', [], ['*']],
    ['stripe', ['--events', ''], ['*']],
    ['stripe', ['--events', ' , '], ['*']],
    ['stripe', ['--events', '*'], ['*']],
    ['standard-webhooks', [], ['*']],
    ['standard-webhooks', ['--events', ''], ['*']],
    ['standard-webhooks', ['--events', '*'], ['*']],
    [
      'standard-webhooks',
      ['--events', 'invoice.paid,contact.created'],
      ['invoice.paid', 'contact.created'],
    ],
    [
      'slack',
      [],
      [
        'message.channels',
        'app_mention',
        'reaction_added',
        'app_home_opened',
        'member_joined_channel',
        'reaction_removed',
        'channel_created',
        'team_join',
        'app_uninstalled',
        'tokens_revoked',
        'member_left_channel',
        'user_change',
        'message.im',
      ],
    ],
  ])('%s %j → %j', async (pack, flags, events) => {
    const root = fresh();
    const r = await cli([
      'endpoints',
      'add',
      pack,
      '--url',
      URL_,
      ...flags,
      '--root',
      root,
      '--json',
    ]);
    expect(r.status).toBe(0);
    expect(r.json().events).toEqual(events);
    const listed = await cli(['endpoints', 'list', pack, '--root', root, '--json']);
    expect(listed.json<{ events: string[] }[]>().map((e) => e.events)).toEqual([events]);
  });
});

describe.each([
  {
    pack: 'stripe',
    type: 'product.created',
    secret: /^whsec_[0-9A-Za-z]{32}$/,
    ref: (id: string) => `stripe/${id}`,
  },
  {
    pack: 'github',
    type: 'push',
    secret: /^[0-9a-f]{40}$/,
    ref: (id: string) => `github/repository_hook/${id}`,
  },
  { pack: 'slack', type: 'message', secret: /^[0-9a-f]{32}$/, ref: (id: string) => `slack/${id}` },
  {
    pack: 'standard-webhooks',
    type: 'contact.created',
    secret: /^whsec_[A-Za-z0-9+/]{32}$/,
    ref: (id: string) => `standard-webhooks/${id}`,
  },
])('a $pack endpoint from add to remove', ({ pack, type, secret, ref }) => {
  const root = fresh();
  let id = '';
  const mine = (qs: Queued[]) =>
    qs.filter((q) => q.endpoint.endsWith(`/${id}`) && q.eventType === type);

  it('add prints its id and a secret generated the vendor way, kept in the secret store', async () => {
    if (pack === 'github') await cli(['trigger', 'github', 'ping', '--root', root]);
    const r = await cli([
      'endpoints',
      'add',
      pack,
      '--url',
      URL_,
      ...(pack === 'github' ? ['--repo', 'octo-org/hello-world'] : []),
      '--root',
      root,
    ]);
    expect(r.status).toBe(0);
    const [head, secretLine] = r.stdout.split('\n');
    id = /\S+ \S+ (\S+) → /.exec(head!)![1]!;
    const shown = /^ {2}secret {3}(\S+)$/.exec(secretLine!)![1]!;
    expect(shown).toMatch(secret);
    expect(await secretsOf(root, ref(id))).toEqual([shown]);
    expect(
      mine(await queued(['trigger', pack, type, '--count', '2', '--root', root])),
    ).toHaveLength(2);
  });

  it('disable: triggers queue nothing to it; enable: they do again', async () => {
    const off = await cli(['endpoints', 'disable', id, '--root', root, '--json']);
    expect(off.status).toBe(0);
    expect(off.json()).toMatchObject({ pack, id, enabled: false });
    const listed = await cli(['endpoints', 'list', '--root', root]);
    expect(listed.stdout).toMatch(new RegExp(`${pack}\\s+${id}\\s+\\S+\\s+\\S+\\s+disabled\\s`));
    if (pack === 'slack') {
      // No app takes it now: the Slack trigger says so rather than writing into nowhere.
      expect((await cli(['trigger', pack, type, '--root', root])).status).toBe(1);
    } else expect(mine(await queued(['trigger', pack, type, '--root', root]))).toEqual([]);
    const on = await cli(['endpoints', 'enable', id, '--root', root]);
    expect(on.stdout).toBe(`enabled ${pack} ${on.stdout.split(' ')[2]} ${id}\n`);
    expect(mine(await queued(['trigger', pack, type, '--root', root]))).toHaveLength(1);
  });

  it('remove: gone from the list, its secret deleted, and no trigger reaches it', async () => {
    const r = await cli(['endpoints', 'remove', id, '--pack', pack, '--root', root, '--json']);
    expect(r.status).toBe(0);
    expect(r.json()).toMatchObject({ pack, id, removed: true });
    expect((await cli(['endpoints', 'list', pack, '--root', root, '--json'])).json()).toEqual([]);
    expect(await secretsOf(root, ref(id))).toEqual([]);
    const again = await cli(['endpoints', 'remove', id, '--root', root]);
    expect(again.stderr).toMatch(/^error UNKNOWN_ENDPOINT: no endpoint /);
    if (pack === 'slack')
      expect((await cli(['trigger', pack, type, '--root', root])).status).toBe(1);
    else expect(mine(await queued(['trigger', pack, type, '--root', root]))).toEqual([]);
  });
});

describe('trigger output', () => {
  it('prints the deliveries queued, every event the writes caused, and exits without sending', async () => {
    const root = fresh();
    await cli(['endpoints', 'add', 'stripe', '--url', URL_, '--root', root]);
    await cli([
      'endpoints',
      'add',
      'stripe',
      '--url',
      URL_,
      '--events',
      'invoice.paid',
      '--root',
      root,
    ]);
    const r = await cli(['trigger', 'stripe', 'invoice.paid', '--root', root]);
    expect(r.status).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe(`stripe invoice.paid: ${lines.length - 2} deliveries queued`);
    expect(lines[1]).toMatch(/^DELIVERY\s+EVENT\s+ENDPOINT$/);
    const types = lines.slice(2).map((l) => l.split(/\s+/)[1]);
    expect(types.filter((t) => t === 'invoice.paid')).toHaveLength(2);
    expect(types).toContain('customer.subscription.created');
    const states = (await cli(['deliveries', '--root', root, '--json'])).json<
      { state: string }[]
    >();
    expect(states.length).toBe(lines.length - 2);
    expect(new Set(states.map((s) => s.state))).toEqual(new Set(['queued']));
    const none = await cli(['trigger', 'standard-webhooks', 'contact.created', '--root', root]);
    expect(none.stdout).toBe(
      'standard-webhooks contact.created: 0 deliveries queued (no endpoint takes these events; register one with `twinworld endpoints add standard-webhooks --url URL …`)\n',
    );
  });
});
