// What a recipe is: the writes that produce one event type, with `ready()` called right before
// the causing one (recipes.ts).
import type { JsonObject, Twin } from '../../src/index.js';

export interface RecipeContext {
  readonly twin: Twin;
  readonly data: JsonObject | undefined;
  /** The repository's full name (owner/name); it exists, and so does the sender, octocat. */
  readonly repository: string;
  /** Called right before the causing write. */
  ready(): Promise<void>;
}

export interface Recipe {
  /** The GitHub event (hook filter name) the type belongs to: issues for issues.opened. */
  readonly family: string;
  readonly keys: readonly string[];
  run(ctx: RecipeContext): Promise<void>;
}
