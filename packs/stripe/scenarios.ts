// `twinworld send stripe <type>`: each event type's recipe (recipes.ts), with the target endpoint
// subscribed to exactly that type right before the causing write.
import type { Scenario, ScenarioKeys, ScenarioResult } from '../kit/vendor-pack.js';
import { recipes } from './recipes.js';
import { createWebhookEndpoint } from './webhook-endpoints.js';

function scenario(type: string, recipe: (typeof recipes)[string]): Scenario {
  return async (ctx) => {
    let made: ScenarioResult | undefined;
    await recipe.run({
      twin: ctx.twin,
      data: ctx.data,
      ready: async () => {
        const endpoint = await createWebhookEndpoint(ctx.twin, {
          url: ctx.target.url,
          enabled_events: [type],
          secret: ctx.target.secret,
          description: `twinworld send ${type}`,
        });
        made = { endpointKind: 'webhook_endpoint', endpointId: endpoint.id };
      },
    });
    return made!;
  };
}

export const scenarios: Readonly<Record<string, Scenario>> = Object.fromEntries(
  Object.entries(recipes).map(([type, recipe]) => [type, scenario(type, recipe)]),
);

/** Each scenario takes its recipe's keys, as `trigger` does. */
export const scenarioKeys: Readonly<Record<string, ScenarioKeys>> = Object.fromEntries(
  Object.entries(recipes).map(([type, recipe]) => [type, recipe.keys]),
);
