// What a built-in vendor pack offers beyond the kernel's Pack: the scenarios `twinworld send`
// runs (one per event type the pack can send), the id shapes the conformance suite checks, and
// how to retire an endpoint a scenario made so later sends to the same world do not reach it.
import type { EventsDeclaration, JsonObject, Pack, Twin } from '../../src/index.js';

/** Where a scenario's endpoint delivers, and the signing secret it uses (kept in world.secrets). */
export interface SendTarget {
  readonly url: string;
  readonly secret: string;
}

export interface ScenarioContext {
  /** The pack's twin, already registered in its world. */
  readonly twin: Twin;
  readonly target: SendTarget;
  /** Caller-supplied overrides (`--data JSON`), merged into the causing write's input. */
  readonly data: JsonObject | undefined;
}

export interface ScenarioResult {
  /** The endpoint the scenario subscribed to the event, right before the causing write. */
  readonly endpointKind: string;
  readonly endpointId: string;
}

/** The `--data` keys a scenario takes, or 'any' when `--data` is the payload itself. */
export type ScenarioKeys = readonly string[] | 'any';

/** Builds what the event needs, subscribes the target endpoint, then performs the causing write. */
export type Scenario = (ctx: ScenarioContext) => Promise<ScenarioResult> | ScenarioResult;

export interface IdShapes {
  /** The shape of the vendor's event ids (evt_…, Ev…, GUIDs). */
  readonly eventId: RegExp;
  /** The shape of per-delivery message ids (X-GitHub-Delivery, webhook-id, …). */
  readonly messageId: RegExp;
  /** Resource type → id shape, for every vendor resource the pack keeps. */
  readonly resources: Readonly<Record<string, RegExp>>;
}

export interface VendorPack extends Pack {
  /**
   * The vendor whose operations this pack's twin takes, when its name is not the vendor's: one
   * account of a surface (`stripe-1a2b…`) is the Stripe pack under another name and twin.
   */
  readonly vendor?: string;
  readonly events: EventsDeclaration;
  readonly description: string;
  readonly scenarios: Readonly<Record<string, Scenario>>;
  /**
   * The `--data` keys each scenario takes, checked before it writes anything ('any': the payload
   * itself). A type not listed is checked only by the vendor operation, after the writes before it.
   */
  readonly scenarioKeys?: Readonly<Record<string, ScenarioKeys>>;
  readonly idShapes: IdShapes;
  /** Stops an endpoint from taking new events (deliveries already recorded still run). */
  retireEndpoint(twin: Twin, endpointKind: string, endpointId: string): Promise<unknown>;
}
