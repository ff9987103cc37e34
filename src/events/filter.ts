// Endpoint event filters: "*", "family.*" or an exact type; empty or absent takes every type. The keys an event type is looked
// up under, so matching endpoints come from an index, never a scan.
export function filterKeysFor(eventType: string): string[] {
  const keys = ['*', eventType];
  const parts = eventType.split('.');
  for (let i = parts.length - 1; i > 0; i--) keys.push(`${parts.slice(0, i).join('.')}.*`);
  return keys;
}

/** An empty or absent filter takes every type, as Svix and the delivery design have it. */
export function filterTakes(
  filter: readonly unknown[] | undefined | null,
  eventType: string,
): boolean {
  if (filter === undefined || filter === null) return true;
  if (!Array.isArray(filter)) return false;
  if (filter.length === 0) return true;
  const keys = new Set(filterKeysFor(eventType));
  return filter.some((f) => typeof f === 'string' && keys.has(f));
}
