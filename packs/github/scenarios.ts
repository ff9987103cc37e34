// `twinworld send github <type>`: the sample organization, user and repository (reused when the
// world already has them), then the type's recipe (recipes.ts) with a hook subscribed to the
// event's family right before the causing write; installations go to a new app's own webhook.
import type {
  Scenario,
  ScenarioContext,
  ScenarioKeys,
  ScenarioResult,
} from '../kit/vendor-pack.js';
import {
  addInstallationRepositories,
  createApp,
  installApp,
  setAppWebhook,
  uninstallApp,
} from './apps.js';
import { createRepositoryHook } from './hooks.js';
import {
  ensureSampleRepository,
  recipes,
  SAMPLE_ORG,
  SAMPLE_REPO,
  SAMPLE_USER,
  type Recipe,
} from './recipes.js';

async function subscribe(ctx: ScenarioContext, family: string): Promise<ScenarioResult> {
  const hook = await createRepositoryHook(ctx.twin, {
    repository: SAMPLE_REPO,
    url: ctx.target.url,
    secret: ctx.target.secret,
    events: [family],
  });
  return { endpointKind: 'repository_hook', endpointId: String(hook.id) };
}

function scenario(recipe: Recipe): Scenario {
  return async (ctx) => {
    await ensureSampleRepository(ctx.twin);
    let made: ScenarioResult | undefined;
    await recipe.run({
      twin: ctx.twin,
      data: ctx.data,
      repository: SAMPLE_REPO,
      ready: async () => {
        made = await subscribe(ctx, recipe.family);
      },
    });
    return made!;
  };
}

/** A new app per send (an app's webhook is its own endpoint). */
async function newApp(ctx: ScenarioContext) {
  const apps = await ctx.twin.list('app');
  return createApp(ctx.twin, { owner: SAMPLE_ORG, name: `Twin App ${apps.length + 1}` });
}

export const scenarios: Readonly<Record<string, Scenario>> = {
  ...Object.fromEntries(Object.entries(recipes).map(([type, r]) => [type, scenario(r)])),
  // Creating the hook is what sends a ping, to that hook alone.
  ping: async (ctx) => {
    await ensureSampleRepository(ctx.twin);
    return subscribe(ctx, 'push');
  },
  'installation.created': async (ctx) => {
    await ensureSampleRepository(ctx.twin);
    const app = await newApp(ctx);
    await setAppWebhook(ctx.twin, app.slug, { url: ctx.target.url, secret: ctx.target.secret });
    await installApp(ctx.twin, {
      app: app.slug,
      account: SAMPLE_ORG,
      sender: SAMPLE_USER,
      ...(ctx.data as { repositories?: string[] } | undefined),
    });
    return { endpointKind: 'app', endpointId: String(app.id) };
  },
  'installation_repositories.added': async (ctx) => {
    await ensureSampleRepository(ctx.twin);
    const app = await newApp(ctx);
    const installation = await installApp(ctx.twin, {
      app: app.slug,
      account: SAMPLE_ORG,
      sender: SAMPLE_USER,
      repositories: [],
    });
    await setAppWebhook(ctx.twin, app.slug, { url: ctx.target.url, secret: ctx.target.secret });
    await addInstallationRepositories(ctx.twin, {
      installation: installation.id,
      repositories: (ctx.data as { repositories?: string[] } | undefined)?.repositories ?? [
        SAMPLE_REPO,
      ],
      sender: SAMPLE_USER,
    });
    return { endpointKind: 'app', endpointId: String(app.id) };
  },
  'installation.deleted': async (ctx) => {
    await ensureSampleRepository(ctx.twin);
    const app = await newApp(ctx);
    const installation = await installApp(ctx.twin, {
      app: app.slug,
      account: SAMPLE_ORG,
      sender: SAMPLE_USER,
    });
    await setAppWebhook(ctx.twin, app.slug, { url: ctx.target.url, secret: ctx.target.secret });
    await uninstallApp(ctx.twin, { installation: installation.id, sender: SAMPLE_USER });
    return { endpointKind: 'app', endpointId: String(app.id) };
  },
};

/** The recipes' keys (on the sample repository: no `repository`); installations take `repositories`. */
export const scenarioKeys: Readonly<Record<string, ScenarioKeys>> = {
  ...Object.fromEntries(Object.entries(recipes).map(([type, r]) => [type, r.keys])),
  ping: [],
  'installation.created': ['repositories'],
  'installation_repositories.added': ['repositories'],
  'installation.deleted': [],
};
