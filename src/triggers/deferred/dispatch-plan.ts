// A dispatch's plan: its checked options with the keys read from the envelope, as plain JSON kept
// on the dispatch, so any process — one that never saw the route's key function — can decide
// what happens to it next. Keys are read before the decision (a key function is host code).
import { sha256Hex } from '../../log/canonical-json.js';
import type { TriggerEnvelope } from '../envelope.js';
import type { CheckedDispatch, DebounceMode, DispatchKey, OnLimit } from './dispatch-options.js';

export interface DispatchPlan {
  readonly delay: { readonly ms: number } | { readonly until: string } | null;
  readonly debounce: {
    readonly key: string;
    readonly period: number;
    readonly mode: DebounceMode;
    readonly maxWait: number | null;
  } | null;
  readonly concurrency: {
    readonly key: string;
    readonly limit: number;
    readonly onLimit: OnLimit;
  } | null;
  readonly ttl: number | null;
}

/** Longer keys are kept as their hash: a key names a window or a gate, it is not data. */
const MAX_KEY_CHARS = 256;

function keyText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'boolean') return String(value);
  return '';
}

/** The key an envelope has under `spec`; the empty key when it has none. */
export function resolveKey(spec: DispatchKey, envelope: TriggerEnvelope): string {
  let value: unknown;
  if (typeof spec === 'function') value = spec(envelope);
  else {
    value = envelope;
    for (const part of spec.split('.')) {
      value =
        value !== null && typeof value === 'object' && !Array.isArray(value)
          ? (value as Record<string, unknown>)[part]
          : undefined;
    }
  }
  const text = keyText(value);
  return text.length > MAX_KEY_CHARS ? `sha256:${sha256Hex(text)}` : text;
}

export function planDispatch(checked: CheckedDispatch, envelope: TriggerEnvelope): DispatchPlan {
  return {
    delay: checked.delay,
    debounce:
      checked.debounce === null
        ? null
        : {
            key: resolveKey(checked.debounce.key, envelope),
            period: checked.debounce.period,
            mode: checked.debounce.mode,
            maxWait: checked.debounce.maxWait,
          },
    concurrency:
      checked.concurrency === null
        ? null
        : {
            key:
              checked.concurrency.key === null ? '' : resolveKey(checked.concurrency.key, envelope),
            limit: checked.concurrency.limit,
            onLimit: checked.concurrency.onLimit,
          },
    ttl: checked.ttl,
  };
}
