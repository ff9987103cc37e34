// Golden walks of the packs' walk-callable scenarios: a GitHub pull request's whole life and a
// Slack conversation, each against receivers that fail on purpose (an operator's redelivery for
// GitHub, Slack's own retries), saved as fixtures/walk-github-pull-request.* and
// fixtures/walk-slack-conversation.* by write-walk-fixtures.ts.
import { github, slack } from '../../packs/index.js';
import { openWalk, type Walk } from '../../src/walk/index.js';

const GITHUB_SECRET = 'golden-github-secret';
const SLACK_SECRET = '8f742231b10e8888abcd99yyyzzz85a5';

/** Push, pull request, two CI rounds (checks and Actions), a review comment, a fix, a merge, a release, a star. */
export async function githubPullRequestWalk(): Promise<Walk> {
  const walk = await openWalk({
    seed: 'walk-github-pull-request',
    start: '2026-03-03T10:00:00.000Z',
    packs: [github.pack],
  });
  const twin = walk.twin('github');
  const ci = walk.receiver('ci', {
    script: [200, 200, 502],
    verify: { scheme: 'github', secrets: [GITHUB_SECRET] },
  });
  const bot = walk.receiver('deploy-bot', {
    verify: { scheme: 'github', secrets: [GITHUB_SECRET] },
  });
  await github.createOrganization(twin, { login: 'octo-org' });
  await github.createUser(twin, { login: 'octocat' });
  await github.createUser(twin, { login: 'hubot' });
  await github.createRepository(twin, {
    owner: 'octo-org',
    name: 'engine',
    description: 'The analytical engine',
  });
  await github.createApp(twin, { owner: 'octo-org', name: 'Twin CI' });
  const deployBot = await github.createApp(twin, {
    owner: 'octo-org',
    name: 'Deploy Bot',
    webhook_url: bot.url,
    webhook_secret: GITHUB_SECRET,
  });
  await github.createRepositoryHook(twin, {
    repository: 'octo-org/engine',
    url: ci.url,
    secret: GITHUB_SECRET,
    events: ['*'],
  });
  await github.installApp(twin, {
    app: deployBot.slug,
    account: 'octo-org',
    repositories: ['octo-org/engine'],
    sender: 'octocat',
  });
  await walk.traced(() =>
    github.pullRequestLife(twin, {
      repository: 'octo-org/engine',
      author: 'octocat',
      reviewer: 'hubot',
      ciApp: 'twin-ci',
      between: () => walk.advance(60_000),
    }),
  );
  await walk.settle();
  // GitHub never retries: the operator redelivers what did not succeed, keeping X-GitHub-Delivery.
  for (const d of (await walk.report()).deliveries)
    if (d.state !== 'succeeded') await walk.dispatcher.redeliver(d.id);
  await walk.settle();
  return walk;
}

/** A newcomer joins, opens App Home, asks for a deploy, approves with a button, runs /deploy, reacts. */
export async function slackConversationWalk(): Promise<Walk> {
  const walk = await openWalk({
    seed: 'walk-slack-conversation',
    start: '2026-03-03T11:00:00.000Z',
    packs: [slack.pack],
  });
  const twin = walk.twin('slack');
  const events = walk.receiver('events', {
    script: [200, 200, 'timeout'],
    verify: { scheme: 'slack', secrets: [SLACK_SECRET] },
  });
  const actions = walk.receiver('actions', {
    script: [500],
    verify: { scheme: 'slack', secrets: [SLACK_SECRET] },
  });
  const commands = walk.receiver('commands', {
    verify: { scheme: 'slack', secrets: [SLACK_SECRET] },
  });
  const team = await slack.createTeam(twin, { name: 'Twinworld' });
  const ada = await slack.createUser(twin, {
    team: team.id,
    name: 'ada',
    real_name: 'Ada Lovelace',
  });
  const grace = await slack.createUser(twin, {
    team: team.id,
    name: 'grace',
    real_name: 'Grace Hopper',
  });
  const general = await slack.createChannel(twin, {
    team: team.id,
    name: 'general',
    creator: ada.id,
  });
  await slack.createApp(twin, {
    team: team.id,
    name: 'Deployer',
    request_url: 'https://setup.example.com/slack/events',
    signing_secret: SLACK_SECRET,
    interactivity_url: actions.url,
    bot_events: [
      'message.channels',
      'app_mention',
      'reaction_added',
      'member_joined_channel',
      'app_home_opened',
    ],
  });
  await slack.createSlashCommand(twin, {
    team: team.id,
    command: '/deploy',
    url: commands.url,
    description: 'Deploy a version',
    usage_hint: '[version]',
  });
  await walk.traced(() =>
    slack.slackConversation(twin, {
      team: team.id,
      channel: general.id,
      asker: ada.id,
      newcomer: grace.id,
      command: '/deploy',
      eventsUrl: events.url,
      between: () => walk.advance(30_000),
    }),
  );
  await walk.settle();
  await walk.runUntilIdle();
  return walk;
}
