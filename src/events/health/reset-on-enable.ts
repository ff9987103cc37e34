// Re-enabling is by hand only, as every vendor has it: when a write enables an endpoint whose
// health disabled it, its health starts again from healthy in the same commit, with the reason.
import type { Entry, Write } from '../../log/write.js';
import type { ReadView } from '../../state/read-view.js';
import type { Twin } from '../../world/twin.js';
import type { EventsDeclaration } from '../declaration.js';
import { endpointEnded } from '../endpoint-cancel.js';
import { endpointHealthKind, freshHealth } from './endpoint-health.js';

function healthResetWrites(
  entries: readonly Entry[],
  view: ReadView,
  decl: EventsDeclaration,
  nowIso: string,
): Write[] {
  const writes: Write[] = [];
  for (const entry of entries) {
    const kind = decl.endpoints.find((k) => k.type === entry.subjectType);
    if (kind === undefined || entry.operation.endsWith('.health_disable')) continue;
    if (endpointEnded(kind, view.get(kind.type, entry.subjectId)) !== undefined) continue;
    const id = endpointHealthKind.id(kind.type, entry.subjectId);
    if (endpointHealthKind.read(view, id)?.state !== 'disabled') continue;
    writes.push(
      endpointHealthKind.write(
        'endpoint_health.enabled',
        id,
        {
          ...freshHealth(kind.type, entry.subjectId),
          reason: 'enabled by hand',
          changedAt: nowIso,
        },
        { actor: 'system' },
      ),
    );
  }
  return writes;
}

export function installHealthReset(twin: Twin, pack: string, decl: EventsDeclaration): void {
  if (decl.health?.disable === undefined) return;
  twin.use({
    name: `health-reset:${pack}`,
    withinCommit: (entries, view) =>
      entries.length === 0 ? [] : healthResetWrites(entries, view, decl, entries[0]!.recordedAt),
  });
}
