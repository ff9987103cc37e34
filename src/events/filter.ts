// Endpoint event filters: "*", "family.*" or an exact type. The keys an event type is looked
// up under, so matching endpoints come from an index, never a scan.
export function filterKeysFor(eventType: string): string[] {
  const keys = ['*', eventType];
  const parts = eventType.split('.');
  for (let i = parts.length - 1; i > 0; i--) keys.push(`${parts.slice(0, i).join('.')}.*`);
  return keys;
}

export function filterTakes(filter: readonly unknown[] | undefined, eventType: string): boolean {
  if (!Array.isArray(filter)) return false;
  const keys = new Set(filterKeysFor(eventType));
  return filter.some((f) => typeof f === 'string' && keys.has(f));
}
