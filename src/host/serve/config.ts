// The serve configuration: tenants, their webhook endpoints (secrets named by environment
// variable, never written down), their calendar subscriptions, and routes. Loaded from a JSON
// file or built from `--endpoint provider=ENV_VAR` flags; every mistake is an INVALID_CONFIG
// naming the field.
import { readFileSync } from 'node:fs';
import { TwinError } from '../../errors.js';
import { fileSystemReason } from '../../log/file-system.js';
import {
  getScheme,
  isSchemeName,
  SCHEME_NAMES,
  type SchemeName,
} from '../../events/signing/index.js';
import { assertJson, isPlainObject } from '../../log/json-value.js';
import { checkLimits, DEFAULT_LIMITS, type IngressLimits } from '../ingress/connections.js';
import {
  validateSubscription,
  type ValidSubscription,
} from '../../triggers/calendar/subscription.js';
import {
  checkProvider,
  checkScopeId,
  checkTenantId,
  checkTriggerId,
} from '../../triggers/envelope.js';
import { RECORD_ROUTINE } from '../../triggers/routines/record-routine.js';
import { endpointScheme } from '../../triggers/webhook/scheme-key.js';
import { isSecretShaped } from './secret-shaped.js';
import {
  checkDispatchOptions,
  type DispatchOptions,
} from '../../triggers/deferred/dispatch-options.js';

export const DEFAULT_TENANT = 'default';

export interface EndpointConfig {
  readonly provider: string;
  readonly scheme: SchemeName;
  /** Environment variable names holding the secrets (several while one rotates). */
  readonly secretEnv: readonly string[];
  readonly triggerId: string;
  readonly toleranceSec: number | null;
  /** GitHub-style schemes: how long a body is remembered against replays (null: the default). */
  readonly replayWindowSec: number | null;
}

export interface TenantConfig {
  readonly id: string;
  readonly scopeId: string;
  readonly endpoints: readonly EndpointConfig[];
  readonly calendars: readonly ValidSubscription[];
}

export interface RouteConfig {
  readonly triggerId: string;
  readonly routine: typeof RECORD_ROUTINE;
  /** Keep only webhook events of these types (payload.eventType); null keeps everything. */
  readonly eventTypes: readonly string[] | null;
  /** Run later: delay, debounce, concurrency, ttl (keys are paths into the envelope); absent: at once. */
  readonly dispatch?: DispatchOptions;
}

export interface ServeConfig {
  readonly tenants: readonly TenantConfig[];
  /** One per trigger used; triggers without an explicit route get the record routine. */
  readonly routes: readonly RouteConfig[];
  /** The ingress host's connection cap and deadlines (defaults filled in). */
  readonly limits: IngressLimits;
  /** Settled trigger history older than this many days is pruned (null: kept forever). */
  readonly retentionDays: number | null;
}

type Env = Readonly<Record<string, string | undefined>>;

export interface ConfigOptions {
  /** Check that every named secret variable is set (default true; `twinworld tick` needs no secrets). */
  readonly checkSecrets?: boolean;
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

function refuse(path: string, message: string): never {
  throw new TwinError('INVALID_CONFIG', message, { path });
}

function object(
  value: unknown,
  path: string,
  keys: readonly string[],
  example: string,
): Record<string, unknown> {
  if (!isPlainObject(value))
    refuse(path, `${path || 'the configuration'} must be an object such as ${example}`);
  for (const key of Object.keys(value)) {
    if (!keys.includes(key))
      refuse(
        path === '' ? key : `${path}.${key}`,
        `${path || 'the configuration'} has an unknown key "${key}"; allowed: ${keys.join(', ')}`,
      );
  }
  return value;
}

function array(value: unknown, path: string): unknown[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) refuse(path, `${path} must be an array`);
  return value;
}

/**
 * A secret the scheme cannot use (Standard Webhooks needs "whsec_" + base64) is refused now, naming
 * the variable: at the first packet it would only be a 500. The value is never shown.
 */
function checkSchemeSecret(scheme: SchemeName, name: string, secret: string, at: string): void {
  try {
    getScheme(scheme).sign({
      body: '{}',
      secrets: [secret],
      timestampSec: 0,
      messageId: 'startup-check',
    });
  } catch (error) {
    const why =
      error instanceof TwinError ? error.message.replace(/secrets\[0\]/g, name) : 'it cannot sign';
    refuse(
      at,
      `environment variable ${name} (named by ${at}) does not hold a usable ${scheme} secret: ${why}`,
    );
  }
}

function envNames(
  value: unknown,
  path: string,
  env: Env | undefined,
  scheme: SchemeName,
): string[] {
  const names = typeof value === 'string' ? [value] : value;
  if (!Array.isArray(names) || names.length === 0)
    refuse(
      path,
      `${path} must name the environment variable holding the secret, e.g. "STRIPE_WEBHOOK_SECRET" (or an array of names while a secret rotates)`,
    );
  return names.map((name: unknown, i) => {
    const at = Array.isArray(value) ? `${path}[${i}]` : path;
    if (typeof name === 'string' && isSecretShaped(name) && (env?.[name] ?? '').trim() === '')
      refuse(
        at,
        `${at} takes the name of an environment variable holding the secret, and this looks like the secret itself (not shown): export it, e.g. STRIPE_WEBHOOK_SECRET=…, and name the variable (--endpoint stripe=STRIPE_WEBHOOK_SECRET, or "secretEnv": "STRIPE_WEBHOOK_SECRET" in a configuration file)`,
      );
    if (typeof name !== 'string' || !ENV_NAME.test(name))
      refuse(at, `${at} must be an environment variable name such as "STRIPE_WEBHOOK_SECRET"`);
    // Checked now so a typo fails at startup, not at the first packet; the value is never kept.
    if (env !== undefined && (env[name] ?? '').trim() === '')
      refuse(
        at,
        `environment variable ${name} (named by ${at}) is not set or empty; export the endpoint's signing secret in it`,
      );
    if (env !== undefined) checkSchemeSecret(scheme, name, env[name]!, at);
    return name;
  });
}

function endpoint(value: unknown, path: string, env: Env | undefined): EndpointConfig {
  const e = object(
    value,
    path,
    [
      'provider',
      'scheme',
      'signatureScheme',
      'secretEnv',
      'triggerId',
      'toleranceSec',
      'replayWindowSec',
    ],
    '{ "provider": "stripe", "secretEnv": "STRIPE_WEBHOOK_SECRET" }',
  );
  const provider = checkProvider(e.provider, `${path}.provider`, 'INVALID_CONFIG');
  // A provider named after a scheme ("stripe") signs with it unless told otherwise.
  const scheme = endpointScheme(e, path, isSchemeName(provider) ? provider : undefined);
  const secretEnv = envNames(e.secretEnv, `${path}.secretEnv`, env, scheme);
  const triggerId =
    e.triggerId === undefined
      ? `${provider}.webhook`
      : checkTriggerId(e.triggerId, `${path}.triggerId`, 'INVALID_CONFIG');
  const tol = e.toleranceSec;
  if (tol !== undefined && (typeof tol !== 'number' || !Number.isFinite(tol) || tol < 0))
    refuse(`${path}.toleranceSec`, `${path}.toleranceSec must be a non-negative number of seconds`);
  const win = e.replayWindowSec;
  if (win !== undefined && (typeof win !== 'number' || !Number.isSafeInteger(win) || win < 1))
    refuse(
      `${path}.replayWindowSec`,
      `${path}.replayWindowSec must be a positive integer number of seconds`,
    );
  return {
    provider,
    scheme,
    secretEnv,
    triggerId,
    toleranceSec: typeof tol === 'number' ? tol : null,
    replayWindowSec: typeof win === 'number' ? win : null,
  };
}

function calendar(
  value: unknown,
  path: string,
  tenantId: string,
  scopeId: string,
): ValidSubscription {
  const c = object(
    value,
    path,
    ['triggerId', 'kind', 'cron', 'timezone', 'catchUp', 'enabled'],
    '{ "triggerId": "nightly", "cron": "0 3 * * *", "timezone": "Europe/London" }',
  );
  try {
    return validateSubscription({ ...c, tenantId, scopeId });
  } catch (error) {
    const e = error as TwinError;
    refuse(e.path ? `${path}.${e.path}` : path, `${path}: ${e.message}`);
  }
}

function tenant(value: unknown, path: string, env: Env | undefined): TenantConfig {
  const t = object(
    value,
    path,
    ['id', 'scopeId', 'endpoints', 'calendars'],
    '{ "id": "acme", "endpoints": [...], "calendars": [...] }',
  );
  const id = checkTenantId(t.id, `${path}.id`, 'INVALID_CONFIG');
  const scopeId =
    t.scopeId === undefined ? id : checkScopeId(t.scopeId, `${path}.scopeId`, 'INVALID_CONFIG');
  const endpoints = array(t.endpoints, `${path}.endpoints`).map((e, i) =>
    endpoint(e, `${path}.endpoints[${i}]`, env),
  );
  const seen = new Set<string>();
  endpoints.forEach((e, i) => {
    if (seen.has(e.provider))
      refuse(
        `${path}.endpoints[${i}].provider`,
        `tenant "${id}" has two endpoints for provider "${e.provider}"`,
      );
    seen.add(e.provider);
  });
  const calendars = array(t.calendars, `${path}.calendars`).map((c, i) =>
    calendar(c, `${path}.calendars[${i}]`, id, scopeId),
  );
  const triggers = new Set<string>();
  calendars.forEach((c, i) => {
    if (triggers.has(c.triggerId))
      refuse(
        `${path}.calendars[${i}].triggerId`,
        `tenant "${id}" has two calendars for trigger "${c.triggerId}"`,
      );
    triggers.add(c.triggerId);
  });
  return { id, scopeId, endpoints, calendars };
}

function route(value: unknown, path: string): RouteConfig {
  const r = object(
    value,
    path,
    ['triggerId', 'routine', 'eventTypes', 'dispatch'],
    '{ "triggerId": "stripe.webhook", "routine": "record" }',
  );
  const triggerId = checkTriggerId(r.triggerId, `${path}.triggerId`, 'INVALID_CONFIG');
  const routine = r.routine ?? RECORD_ROUTINE;
  if (routine !== RECORD_ROUTINE)
    refuse(
      `${path}.routine`,
      `${path}.routine ${JSON.stringify(routine)} is not a built-in routine; the serve command has one: "${RECORD_ROUTINE}"`,
    );
  let eventTypes: string[] | null = null;
  if (r.eventTypes !== undefined) {
    if (
      !Array.isArray(r.eventTypes) ||
      r.eventTypes.length === 0 ||
      !r.eventTypes.every((t) => typeof t === 'string' && t !== '')
    ) {
      refuse(
        `${path}.eventTypes`,
        `${path}.eventTypes must be a non-empty array of event type names such as ["customer.created"]`,
      );
    }
    eventTypes = r.eventTypes as string[];
  }
  if (r.dispatch === undefined) return { triggerId, routine: RECORD_ROUTINE, eventTypes };
  checkDispatchOptions(r.dispatch, `${path}.dispatch`, 'INVALID_CONFIG');
  return {
    triggerId,
    routine: RECORD_ROUTINE,
    eventTypes,
    dispatch: r.dispatch as DispatchOptions,
  };
}

function limits(value: unknown): IngressLimits {
  if (value === undefined) return DEFAULT_LIMITS;
  const l = object(
    value,
    'limits',
    Object.keys(DEFAULT_LIMITS),
    '{ "maxConnections": 1024, "headersTimeoutSec": 10, "bodyTimeoutSec": 30 }',
  );
  try {
    return checkLimits({ ...DEFAULT_LIMITS, ...(l as Partial<IngressLimits>) });
  } catch (error) {
    const e = error as TwinError;
    refuse(e.path ?? 'limits', e.message);
  }
}

function retentionDays(value: unknown): number | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0 || value > 36_500) {
    refuse(
      'retentionDays',
      'retentionDays must be a positive number of days (settled trigger history older than that is pruned), or omitted to keep it',
    );
  }
  return value;
}

/** Validates a parsed configuration (see README: "Serve configuration"). */
export function validateServeConfig(
  value: unknown,
  env: Env = process.env,
  options: ConfigOptions = {},
): ServeConfig {
  // Nothing nested past the limit, no lone surrogates or __proto__ keys, before any field is read.
  assertJson(value, 'config', { code: 'INVALID_CONFIG' });
  const c = object(
    value,
    '',
    ['tenants', 'routes', 'limits', 'retentionDays'],
    '{ "tenants": [...], "routes": [...] }',
  );
  const checked = options.checkSecrets === false ? undefined : env;
  const tenants = array(c.tenants, 'tenants').map((t, i) => tenant(t, `tenants[${i}]`, checked));
  if (tenants.length === 0)
    refuse(
      'tenants',
      'tenants is empty; configure at least one tenant with an endpoint or a calendar',
    );
  const ids = new Set<string>();
  tenants.forEach((t, i) => {
    if (ids.has(t.id)) refuse(`tenants[${i}].id`, `tenant "${t.id}" is configured twice`);
    ids.add(t.id);
  });
  const explicit = array(c.routes, 'routes').map((r, i) => route(r, `routes[${i}]`));
  const used = new Set(
    tenants.flatMap((t) => [
      ...t.endpoints.map((e) => e.triggerId),
      ...t.calendars.map((k) => k.triggerId),
    ]),
  );
  const routed = new Set<string>();
  explicit.forEach((r, i) => {
    if (routed.has(r.triggerId))
      refuse(`routes[${i}].triggerId`, `trigger "${r.triggerId}" has two routes`);
    if (!used.has(r.triggerId))
      refuse(
        `routes[${i}].triggerId`,
        `no endpoint or calendar fires trigger "${r.triggerId}"; check the name`,
      );
    routed.add(r.triggerId);
  });
  const routes = [
    ...explicit,
    ...[...used]
      .filter((t) => !routed.has(t))
      .sort()
      .map((triggerId): RouteConfig => ({ triggerId, routine: RECORD_ROUTINE, eventTypes: null })),
  ];
  return {
    tenants,
    routes,
    limits: limits(c.limits),
    retentionDays: retentionDays(c.retentionDays),
  };
}

/** Reads and validates a JSON configuration file. */
export function loadServeConfig(
  file: string,
  env: Env = process.env,
  options: ConfigOptions = {},
): ServeConfig {
  if (typeof file !== 'string' || file === '')
    throw new TwinError(
      'INVALID_ARGUMENT',
      'loadServeConfig(file): give the path of a JSON configuration file',
      { path: 'file' },
    );
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new TwinError(
      'INVALID_CONFIG',
      `cannot read configuration file ${file}: ${fileSystemReason(error, 'reading')}; check the path`,
      { path: 'file', cause: error },
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new TwinError(
      'INVALID_CONFIG',
      `configuration file ${file} is not valid JSON: ${(error as Error).message}`,
      { path: 'file' },
    );
  }
  return validateServeConfig(parsed, env, options);
}

/**
 * The common case from flags alone: each `provider=ENV_VAR` (or `provider:scheme=ENV_VAR` for a
 * provider that is not a scheme name) is an endpoint of tenant "default", its events routed to
 * the record routine.
 */
export function configFromFlags(endpoints: readonly string[], env: Env = process.env): ServeConfig {
  if (!Array.isArray(endpoints) || endpoints.length === 0) {
    throw new TwinError(
      'INVALID_CONFIG',
      'give at least one --endpoint provider=ENV_VAR (e.g. --endpoint stripe=STRIPE_WEBHOOK_SECRET), or a --config file',
      { path: 'endpoint' },
    );
  }
  const parsed = endpoints.map((flag, i) => {
    const path = `endpoint[${i}]`;
    const m = typeof flag === 'string' ? /^([^:=]+)(?::([^=]+))?=(.+)$/.exec(flag) : null;
    if (m === null)
      refuse(
        path,
        `--endpoint ${JSON.stringify(flag)} must look like provider=ENV_VAR (e.g. stripe=STRIPE_WEBHOOK_SECRET) or provider:scheme=ENV_VAR`,
      );
    // A flag has no `scheme` key to name: say how to write the scheme in the flag itself.
    if (m[2] === undefined && !isSchemeName(m[1]))
      refuse(
        path,
        `--endpoint ${JSON.stringify(flag)}: "${m[1]}" is not a signature scheme, so say which one its sender signs with: ${m[1]}:SCHEME=${m[3]}, SCHEME one of ${SCHEME_NAMES.join(', ')}`,
      );
    return { provider: m[1], ...(m[2] === undefined ? {} : { scheme: m[2] }), secretEnv: m[3] };
  });
  try {
    return validateServeConfig({ tenants: [{ id: DEFAULT_TENANT, endpoints: parsed }] }, env);
  } catch (error) {
    const e = error as TwinError;
    const at = /endpoints\[(\d+)\]/.exec(e.path ?? '');
    throw new TwinError(
      'INVALID_CONFIG',
      e.message.replace(/tenants\[0\]\.endpoints\[(\d+)\]/g, 'endpoint[$1]'),
      { path: at === null ? (e.path ?? 'endpoint') : `endpoint[${at[1]}]` },
    );
  }
}
