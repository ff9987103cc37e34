// One Stripe route as data: the generic route plus its parameter spec; the handler gets the
// account's twin and typed input, and its answer is expanded as `expand[]` asks.
import type { JsonObject, JsonValue, Twin } from '../../../src/index.js';
import {
  answer,
  type HttpMethod,
  type Route,
  type RouteAnswer,
  type RouteContext,
} from '../../../src/host/index.js';
import type { StripeAccount } from './accounts.js';
import { typeParams, type Params } from './codec.js';
import { checkoutUrlsOn } from './checkout-url.js';
import { renderStripeError, StripeApiError, unknownStripeRoute } from './errors.js';
import { expandAnswer } from './expand.js';

/** The answer with Checkout's page on the host's origin (checkout-url.ts). */
function onOrigin(answered: RouteAnswer, origin: string): RouteAnswer {
  if (answered !== null && typeof answered === 'object' && 'answer' in answered)
    return { ...answered, body: checkoutUrlsOn(answered.body, origin) };
  return checkoutUrlsOn(answered, origin);
}

export interface StripeContext {
  readonly twin: Twin;
  readonly account: StripeAccount;
  readonly params: Readonly<Record<string, string>>;
  readonly input: JsonObject;
  readonly origin: string;
  readonly url: string;
}

export interface StripeRouteSpec {
  readonly method: HttpMethod;
  readonly path: string;
  readonly sdk: string;
  readonly kind: 'read' | 'write';
  readonly events?: readonly string[];
  readonly params?: Params;
  /** Parameters Stripe requires: one absent (or "") is 400 parameter_missing naming it. */
  readonly required?: readonly string[];
  /**
   * Path segments Stripe serves as routes of their own (`/v1/prices/search`) that this twin does
   * not serve: never taken as an `:id`, they answer Stripe's unrecognized URL like any other.
   */
  readonly notIds?: readonly string[];
  readonly handle: (ctx: StripeContext) => Promise<RouteAnswer> | RouteAnswer;
}

export function stripeRoute(spec: StripeRouteSpec): Route<StripeAccount> {
  return {
    method: spec.method,
    path: spec.path,
    sdk: spec.sdk,
    kind: spec.kind,
    ...(spec.events === undefined ? {} : { events: spec.events }),
    async handle(ctx: RouteContext<StripeAccount>) {
      const url = new URL(ctx.request.url).pathname;
      if (ctx.params.id !== undefined && spec.notIds?.includes(ctx.params.id)) {
        const unknown = unknownStripeRoute(spec.method, url);
        return answer(unknown.status, unknown.body);
      }
      const input = typeParams(ctx.input, spec.params ?? {});
      for (const name of spec.required ?? [])
        if (input[name] == null)
          throw new StripeApiError(
            400,
            'invalid_request_error',
            'parameter_missing',
            `Missing required param: ${name}.`,
            {},
            name,
          );
      const answered = await spec.handle({
        twin: ctx.principal.twin,
        account: ctx.principal,
        params: ctx.params,
        input,
        origin: ctx.origin,
        url,
      });
      const expand = input.expand as string[] | undefined;
      if (expand === undefined || expand.length === 0) return onOrigin(answered, ctx.origin);
      try {
        return onOrigin(
          await expandAnswer(ctx.principal.twin, answered as JsonValue, expand),
          ctx.origin,
        );
      } catch (error) {
        if (spec.kind === 'read') throw error;
        // The write has committed: its refusal is an answer, saved under the idempotency key like
        // any answer of a request that ran, so a retry replays it instead of writing again.
        const r = renderStripeError(error);
        return answer(r.status, r.body, r.headers);
      }
    },
  };
}

/** A pack object as the API shows it: fields the twin keeps for itself left out. */
export function apiObject<T extends object>(value: T): JsonObject {
  const out = { ...(value as Record<string, JsonValue>) };
  delete out.secret_ref;
  return out;
}
