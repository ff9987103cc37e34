// JSON values as the log accepts them: checked once at the door so that nothing that cannot
// round-trip through JSON and back to the same value — undefined, NaN, ±Infinity (what `1e400`
// parses to), functions, cycles, BigInt, lone UTF-16 surrogates, `__proto__` keys — ever enters
// history, and nothing nested so deep that a recursive reader (a hash, a fold, a printer) would
// run out of stack. The walk is iterative: a hostile depth cannot overflow the checker itself.
import { TwinError, type TwinErrorCode } from '../errors.js';

type JsonPrimitive = string | number | boolean | null;
export type JsonValue = JsonPrimitive | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

/** Deepest nesting of objects and arrays a value may have (the value itself is level 1). */
export const MAX_JSON_DEPTH = 64;

export interface JsonCheckOptions {
  /** The code refusals carry: INVALID_WRITE (default), INVALID_ENVELOPE, INVALID_BODY, INVALID_CONFIG… */
  readonly code?: TwinErrorCode;
  /**
   * Deepest nesting allowed (default MAX_JSON_DEPTH). Values stored below the top of a write —
   * a payload inside a trigger record — get less, so the write that holds them stays within it.
   */
  readonly maxDepth?: number;
}

/** Upper bound of the canonical JSON size of the values walked, in UTF-8 bytes. */
export interface SizeBound {
  bytes: number;
}

function describe(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (typeof value === 'number') return String(value);
  if (typeof value === 'bigint') return `BigInt ${String(value)}n`;
  if (typeof value === 'function') return 'a function';
  if (typeof value === 'symbol') return 'a symbol';
  return Object.prototype.toString.call(value);
}

// String.prototype.isWellFormed: on Node 20, typed by the ES2024.String lib (tsconfig.json).
const wellFormed = (s: string): boolean => s.isWellFormed();

/** True when `s` is well-formed UTF-16 (every surrogate paired), so it encodes to UTF-8 and back unchanged. */
function isWellFormedString(s: string): boolean {
  return wellFormed(s);
}

/** Index of the first lone surrogate in `s` (for messages), or -1. */
function loneSurrogateAt(s: string): number {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const next = s.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
      else return i;
    } else if (c >= 0xdc00 && c <= 0xdfff) return i;
  }
  return -1;
}

/** Throws `code` when `s` holds a lone surrogate, naming where; such a string is not valid UTF-8. */
export function assertWellFormed(
  s: string,
  path: string,
  code: TwinErrorCode = 'INVALID_WRITE',
): void {
  if (wellFormed(s)) return;
  const at = loneSurrogateAt(s);
  const unit = s.charCodeAt(at).toString(16).padStart(4, '0');
  throw new TwinError(
    code,
    `${path} holds a lone UTF-16 surrogate (\\u${unit} at index ${at}), which is not valid UTF-8 and would be stored as U+FFFD; send well-formed text (pair the surrogate or remove it)`,
    {
      path,
    },
  );
}

interface Frame {
  readonly node: object;
  /** null for arrays */
  readonly keys: string[] | null;
  readonly length: number;
  i: number;
  /** How this node was reached from its parent (unused for the root). */
  readonly via: string | number;
}

function pathOf(
  root: string,
  stack: readonly Frame[],
  depth: number,
  last?: string | number,
): string {
  let out = root;
  for (let d = 1; d < depth; d++) {
    const k = stack[d]!.via;
    out += typeof k === 'number' ? `[${k}]` : `.${k}`;
  }
  if (last !== undefined) out += typeof last === 'number' ? `[${last}]` : `.${last}`;
  return out;
}

function notJson(code: TwinErrorCode, at: string, bad: unknown, fix: string): never {
  throw new TwinError(code, `${at} is ${describe(bad)}, which is not JSON; ${fix}`, { path: at });
}

/** Size (upper bound) of a scalar, or a refusal. Strings count 6 bytes a unit (\u00XX escapes). */
function scalarBytes(
  v: unknown,
  code: TwinErrorCode,
  root: string,
  stack: readonly Frame[],
  depth: number,
  via: string | number | undefined,
): number {
  switch (typeof v) {
    case 'string':
      if (!wellFormed(v)) assertWellFormed(v, pathOf(root, stack, depth, via), code);
      return v.length * 6 + 2;
    case 'boolean':
      return 5;
    case 'number':
      if (!Number.isFinite(v)) {
        notJson(
          code,
          pathOf(root, stack, depth, via),
          v,
          'store a finite number (a literal such as 1e400 overflows to Infinity), or null, or a string such as "Infinity"',
        );
      }
      return 24;
    case 'undefined':
      return notJson(code, pathOf(root, stack, depth, via), v, 'omit the key or use null');
    case 'bigint':
      return notJson(
        code,
        pathOf(root, stack, depth, via),
        v,
        'convert it to a string (or a number if it fits in 2^53)',
      );
    default:
      if (v === null) return 4;
      return notJson(code, pathOf(root, stack, depth, via), v, 'store data, not code');
  }
}

/**
 * The first node on the stack that repeats an ancestor, if any: a cycle is only looked for once
 * the depth limit is hit, since every cycle reaches it, so valid values pay nothing for it.
 */
function cycleDepth(stack: readonly Frame[], depth: number): number {
  for (let j = 1; j < depth; j++)
    for (let i = 0; i < j; i++) if (stack[i]!.node === stack[j]!.node) return j;
  return -1;
}

/**
 * Throws a TwinError (INVALID_WRITE unless `options.code` says otherwise) naming the first
 * offending path. Only plain objects and arrays are accepted as containers: a Date or Map would
 * silently change shape when serialized. `bound`, when given, is increased by an upper bound of
 * the value's canonical JSON size, so callers can skip an exact size count for small values.
 */
export function assertJson(
  value: unknown,
  path: string,
  options: JsonCheckOptions = {},
  bound?: SizeBound,
): asserts value is JsonValue {
  const code = options.code ?? 'INVALID_WRITE';
  const maxDepth = options.maxDepth ?? MAX_JSON_DEPTH;
  const stack: Frame[] = [];
  if (typeof value !== 'object' || value === null) {
    const bytes = scalarBytes(value, code, path, stack, 0, undefined);
    if (bound !== undefined) bound.bytes += bytes;
    return;
  }
  let bytes = 0;
  let depth = 0;
  let node: object = value;
  let via: string | number = '';
  for (;;) {
    // Enter `node`, reached from the frame below through `via`.
    if (depth >= maxDepth) {
      stack[depth] = { node, keys: null, length: 0, i: 0, via };
      const j = cycleDepth(stack, depth + 1);
      if (j >= 0) {
        const at = pathOf(path, stack, j + 1);
        throw new TwinError(
          code,
          `${at} refers back to one of its own ancestors (a cycle); JSON cannot hold cycles, store an id instead`,
          { path: at },
        );
      }
      const at = pathOf(path, stack, depth, via);
      throw new TwinError(
        code,
        `${at} is nested ${maxDepth + 1} levels deep, over the limit of ${maxDepth}; flatten the structure (or store it as a string)`,
        {
          path: at,
          details: { limit: maxDepth },
        },
      );
    }
    let frame: Frame;
    if (Array.isArray(node)) {
      frame = { node, keys: null, length: node.length, i: 0, via };
      bytes += 2 + node.length;
    } else {
      const proto = Object.getPrototypeOf(node);
      if (proto !== Object.prototype && proto !== null) {
        notJson(
          code,
          depth === 0 ? path : pathOf(path, stack, depth, via),
          node,
          'convert it to a plain object, string or number first (e.g. a Date to an ISO string)',
        );
      }
      const keys = Object.keys(node);
      frame = { node, keys, length: keys.length, i: 0, via };
      bytes += 2 + keys.length;
    }
    stack[depth++] = frame;
    // Walk on to the next container, or unwind.
    let next: object | undefined;
    while (next === undefined && depth > 0) {
      const top = stack[depth - 1]!;
      if (top.i >= top.length) {
        depth--;
        continue;
      }
      const i = top.i++;
      let child: unknown;
      if (top.keys === null) {
        const list = top.node as unknown[];
        if (!(i in list))
          notJson(code, pathOf(path, stack, depth, i), undefined, 'fill the hole with null');
        child = list[i];
        via = i;
      } else {
        const key = top.keys[i]!;
        if (key === '__proto__') {
          const at = pathOf(path, stack, depth, key);
          throw new TwinError(
            code,
            `${at}: the key "__proto__" is refused (merged into a resource it would rewrite the object's prototype); rename it`,
            { path: at },
          );
        }
        if (!wellFormed(key)) assertWellFormed(key, `${pathOf(path, stack, depth)} key`, code);
        bytes += key.length * 6 + 3;
        child = (top.node as Record<string, unknown>)[key];
        via = key;
      }
      if (typeof child === 'object' && child !== null) next = child;
      else bytes += scalarBytes(child, code, path, stack, depth, via);
    }
    if (next === undefined) break;
    node = next;
  }
  if (bound !== undefined) bound.bytes += bytes;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
