// Stripe's wire format in: bracketed form encoding (`metadata[k]=v`, `expand[0]=x`,
// `items[0][price]=p`) from bodies and queries, read into nested JSON of strings; then each route's
// parameter spec types it (integers, booleans, `""` to unset) and names any unknown parameter the
// way Stripe does (`parameter_unknown`, param `foo[bar]`). See docs/stripe-surface.md.
import type { JsonObject, JsonValue } from '../../../src/index.js';
import { VendorError } from '../../kit/errors.js';

/** A parameter's type: scalars, a map of strings (metadata), a list, or an object of named fields. */
type ParamSpec =
  | 'string'
  | 'integer'
  | 'boolean'
  | 'metadata'
  | 'id_or_object'
  | { readonly list: ParamSpec }
  | { readonly [field: string]: ParamSpec };

export type Params = Readonly<Record<string, ParamSpec>>;

/** What every route also takes. */
const COMMON: Params = { expand: { list: 'string' } };

const MAX_DEPTH = 8;

function invalid(param: string, message: string): VendorError {
  return new VendorError('stripe', 'invalid_input', 'parameter_invalid', message, { path: param });
}

/** `a[b][0]` → ['a', 'b', '0']; refuses a malformed key. */
function segments(key: string): string[] {
  const m = /^([^[\]]+)((?:\[[^[\]]*\])*)$/.exec(key);
  if (m === null) throw invalid(key, `Invalid parameter name: ${key}`);
  const rest = [...m[2]!.matchAll(/\[([^[\]]*)\]/g)].map((x) => x[1]!);
  if (rest.length >= MAX_DEPTH) throw invalid(key, `${key} is nested too deeply`);
  return [m[1]!, ...rest];
}

type Tree = { [key: string]: Tree | string };

/**
 * Reads form pairs into a tree of strings (arrays still keyed by index; `[]` appends). Every node
 * is an object without a prototype, so a name like `constructor` or `prototype` is only a name and
 * nothing a client sends reaches Object.prototype; `__proto__` is refused, since the answer is a
 * plain copy of the tree. Each node counts its names, so `[]` appends in constant time.
 */
export function decodeForm(pairs: Iterable<[string, string]>): JsonObject {
  const root = Object.create(null) as Tree;
  const sizes = new Map<Tree, number>([[root, 0]]);
  const put = (node: Tree, name: string, value: Tree | string): void => {
    if (!(name in node)) sizes.set(node, sizes.get(node)! + 1);
    node[name] = value;
  };
  for (const [key, value] of pairs) {
    const path = segments(key);
    let node = root;
    path.forEach((seg, i) => {
      if (seg === '__proto__') throw invalid(key, `Invalid parameter name: ${key}`);
      const name = seg === '' ? String(sizes.get(node)) : seg;
      if (i === path.length - 1) {
        put(node, name, value);
        return;
      }
      const next = node[name];
      if (typeof next === 'string')
        throw invalid(path.slice(0, i + 1).join('.'), `${key} mixes a value and fields`);
      if (next !== undefined) {
        node = next;
        return;
      }
      const child = Object.create(null) as Tree;
      sizes.set(child, 0);
      put(node, name, child);
      node = child;
    });
  }
  return plain(root as unknown as JsonValue) as JsonObject;
}

function bracket(path: readonly string[]): string {
  return path.length === 0
    ? ''
    : path[0] +
        path
          .slice(1)
          .map((p) => `[${p}]`)
          .join('');
}

function unknown(path: readonly string[]): VendorError {
  const param = bracket(path);
  return new VendorError(
    'stripe',
    'invalid_input',
    'parameter_unknown',
    `Received unknown parameter: ${param}`,
    {
      path: param,
    },
  );
}

function isList(spec: ParamSpec): spec is { readonly list: ParamSpec } {
  return (
    typeof spec === 'object' &&
    Object.keys(spec).length === 1 &&
    'list' in spec &&
    typeof spec.list !== 'undefined'
  );
}

/** Types one value by its spec; `""` unsets (null) any scalar. */
function typed(value: JsonValue, spec: ParamSpec, path: string[]): JsonValue {
  const param = bracket(path);
  // `metadata=""` too: Stripe unsets every key then (mergeMetadata takes null so).
  if (value === '') return null;
  if (spec === 'string') {
    if (typeof value !== 'string')
      throw invalid(param, `Invalid string: ${param} must be a string`);
    return value;
  }
  if (spec === 'integer') {
    if (typeof value === 'number' && Number.isSafeInteger(value)) return value;
    if (typeof value !== 'string' || !/^-?\d{1,15}$/.test(value))
      throw invalid(param, `Invalid integer: ${param} must be an integer`);
    return Number(value);
  }
  if (spec === 'boolean') {
    if (value === 'true' || value === true) return true;
    if (value === 'false' || value === false) return false;
    throw invalid(param, `Invalid boolean: ${param} must be true or false`);
  }
  if (spec === 'metadata') {
    if (value === null || typeof value !== 'object' || Array.isArray(value))
      throw invalid(param, `Invalid object: ${param} must be a map of strings`);
    for (const [k, v] of Object.entries(value))
      if (typeof v !== 'string')
        throw invalid(`${param}[${k}]`, `Invalid string: ${param}[${k}] must be a string`);
    return value;
  }
  if (spec === 'id_or_object') return value;
  if (isList(spec)) {
    if (value === null || typeof value !== 'object')
      throw invalid(param, `Invalid array: ${param} must be a list (${param}[0]=…)`);
    const entries = Array.isArray(value)
      ? value.map((v, i) => [String(i), v] as const)
      : Object.entries(value);
    for (const [k] of entries)
      if (!/^\d+$/.test(k))
        throw invalid(`${param}[${k}]`, `Invalid array: ${param} must be indexed by numbers`);
    return entries
      .sort((a, b) => Number(a[0]) - Number(b[0]))
      .map(([k, v]) => typed(v, spec.list, [...path, k]));
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw invalid(param, `Invalid object: ${param} must be an object (${param}[field]=…)`);
  return typedObject(value, spec as Params, path);
}

/** A decoded subtree as plain JSON (the tree's nodes have no prototype). */
function plain(value: JsonValue): JsonValue {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(plain);
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plain(v)]));
}

function typedObject(value: JsonObject, spec: Params, path: string[]): JsonObject {
  const out: JsonObject = {};
  for (const [key, v] of Object.entries(value)) {
    // Own names only: `constructor` is a parameter no spec has, not Object's.
    const s = Object.hasOwn(spec, key) ? spec[key] : undefined;
    if (s === undefined) throw unknown([...path, key]);
    out[key] = typed(v, s, [...path, key]);
  }
  return out;
}

/** The decoded input typed by a route's spec (plus `expand`): unknown parameters are refused. */
export function typeParams(input: JsonObject, spec: Params): JsonObject {
  return typedObject(input, { ...COMMON, ...spec }, []);
}
