// Overlap policies: what a schedule does with an occurrence that falls due while an earlier one of
// the same schedule still holds a reservation or a run. Parsed from the CLI's text form
// (`fire`, `skip`, `buffer:N[:oldest|newest]`, `supersede`) or checked as stored objects, and
// decided by one pure function the claim calls inside its atomic action.
import { TwinError } from '../../errors.js';

export type OverlapPolicy =
  /** Launch every occurrence, whatever is running (Temporal AllowAll). */
  | { readonly kind: 'fire' }
  /** Drop an occurrence that falls due while a run is active (Temporal Skip). */
  | { readonly kind: 'skip' }
  /**
   * Queue up to `size` occurrences behind the active run, launched one by one as runs end. When
   * full, `oldest` keeps the queue and skips the newcomer; `newest` drops the oldest queued one.
   */
  | { readonly kind: 'buffer'; readonly size: number; readonly keep: 'oldest' | 'newest' }
  /** Cancel whatever is pending or running and launch the newcomer. */
  | { readonly kind: 'supersede' };

type OverlapKind = OverlapPolicy['kind'];
const OVERLAP_KINDS: readonly OverlapKind[] = ['fire', 'skip', 'buffer', 'supersede'];
export const DEFAULT_OVERLAP: OverlapPolicy = Object.freeze({ kind: 'skip' });
/** A buffer is read whole by every claim: keep it small. */
export const MAX_BUFFER = 100;

const FORMS = "'fire', 'skip', 'buffer:N', 'buffer:N:oldest', 'buffer:N:newest' or 'supersede'";

function refuse(path: string, message: string): never {
  throw new TwinError('INVALID_CONFIG', message, { path });
}

function checkSize(size: unknown, path: string): number {
  if (typeof size !== 'number' || !Number.isSafeInteger(size) || size < 1 || size > MAX_BUFFER)
    refuse(
      path,
      `buffer size must be an integer from 1 to ${MAX_BUFFER}, got ${JSON.stringify(size) ?? String(size)}`,
    );
  return size;
}

/** The text form, e.g. "buffer:3:newest" → { kind: 'buffer', size: 3, keep: 'newest' }. */
export function parseOverlap(text: string, path = 'overlap'): OverlapPolicy {
  if (typeof text !== 'string') refuse(path, `overlap must be one of ${FORMS}`);
  const [kind, size, keep, ...rest] = text.split(':');
  if (kind === 'fire' || kind === 'skip' || kind === 'supersede') {
    if (size !== undefined)
      refuse(path, `overlap '${kind}' takes no parameters; write just '${kind}'`);
    return { kind };
  }
  if (kind === 'buffer') {
    if (size === undefined || !/^\d+$/.test(size))
      refuse(path, `overlap '${text}' needs a buffer size, e.g. 'buffer:1' or 'buffer:5:newest'`);
    if (rest.length > 0 || (keep !== undefined && keep !== 'oldest' && keep !== 'newest'))
      refuse(path, `overlap '${text}': what a full buffer keeps is 'oldest' or 'newest'`);
    return { kind, size: checkSize(Number(size), path), keep: keep ?? 'oldest' };
  }
  return refuse(path, `overlap '${text}' is not a policy; use ${FORMS}`);
}

/** A policy given as an object (or its text form); INVALID_CONFIG naming the field. */
export function validateOverlap(value: unknown, path = 'overlap'): OverlapPolicy {
  if (typeof value === 'string') return parseOverlap(value, path);
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    refuse(path, `overlap must be one of ${FORMS}, or an object such as { kind: 'skip' }`);
  const p = value as Record<string, unknown>;
  for (const key of Object.keys(p))
    if (!['kind', 'size', 'keep'].includes(key))
      refuse(`${path}.${key}`, `overlap has an unknown key "${key}"; allowed: kind, size, keep`);
  if (p.kind === 'fire' || p.kind === 'skip' || p.kind === 'supersede') {
    if (p.size !== undefined || p.keep !== undefined)
      refuse(path, `overlap '${p.kind}' takes no size or keep`);
    return { kind: p.kind };
  }
  if (p.kind === 'buffer') {
    const keep = p.keep ?? 'oldest';
    if (keep !== 'oldest' && keep !== 'newest')
      refuse(`${path}.keep`, "buffer keep must be 'oldest' or 'newest'");
    return { kind: 'buffer', size: checkSize(p.size, `${path}.size`), keep };
  }
  return refuse(
    `${path}.kind`,
    `overlap kind must be one of ${OVERLAP_KINDS.join(', ')}, not ${JSON.stringify(p.kind) ?? 'undefined'}`,
  );
}

export function formatOverlap(p: OverlapPolicy): string {
  return p.kind === 'buffer' ? `buffer:${p.size}:${p.keep}` : p.kind;
}

/** What the claim does with a new occurrence. */
export type OverlapAction =
  /** Launch it; nothing else changes. */
  | { readonly action: 'fire' }
  /** Launch it and cancel every pending or running occurrence. */
  | { readonly action: 'supersede' }
  /** Record it as skipped: a run is active (`overlap`) or the buffer is full and keeps its oldest. */
  | { readonly action: 'skip'; readonly reason: 'overlap' | 'buffer-full' }
  /** Queue it; `dropOldest` removes the oldest queued occurrence first (a full buffer keeping newest). */
  | { readonly action: 'buffer'; readonly dropOldest: boolean };

/**
 * What the overlap policy does with one occurrence, from the stored policy and what the schedule holds:
 * `active` occurrences with a reservation or a run, `buffered` ones queued behind them.
 */
export function overlapActionFor(
  policy: OverlapPolicy,
  held: { readonly active: number; readonly buffered: number },
): OverlapAction {
  // Queued occurrences with nothing active can only be a paused schedule's: still busy, in order.
  const busy = held.active > 0 || held.buffered > 0;
  switch (policy.kind) {
    case 'fire':
      return { action: 'fire' };
    case 'skip':
      return busy ? { action: 'skip', reason: 'overlap' } : { action: 'fire' };
    case 'supersede':
      return busy ? { action: 'supersede' } : { action: 'fire' };
    case 'buffer':
      if (!busy) return { action: 'fire' };
      if (held.buffered < policy.size) return { action: 'buffer', dropOldest: false };
      return policy.keep === 'oldest'
        ? { action: 'skip', reason: 'buffer-full' }
        : { action: 'buffer', dropOldest: true };
  }
}
