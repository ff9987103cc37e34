// What a recipe is (recipes.ts): the writes that produce one event type, with the moment right
// before the causing write marked, so `send` can subscribe its endpoint there.
import type { JsonObject, Twin } from '../../src/index.js';

interface RecipeContext {
  readonly twin: Twin;
  readonly data: JsonObject | undefined;
  /** Called right before the causing write. */
  ready(): Promise<void>;
}

export interface Recipe {
  /** The `--data` keys the causing call takes. */
  readonly keys: readonly string[];
  run(ctx: RecipeContext): Promise<void>;
}
