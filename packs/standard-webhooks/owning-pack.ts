// A Standard Webhooks twin is one app's sender, so operations find their pack from the twin:
// its declared event types and its name come from the pack registered for that twin.
import { packTwinName, registeredPacks, TwinError, type Twin } from '../../src/index.js';
import type { VendorPack } from '../kit/vendor-pack.js';
import { swIdShapes } from './ids.js';

export function owningPack(twin: Twin): VendorPack {
  for (const pack of registeredPacks(twin.world).values()) {
    // Packs made by createStandardWebhooksPack share these id shapes: that is what marks them.
    if (packTwinName(pack) === twin.name && (pack as Partial<VendorPack>).idShapes === swIdShapes)
      return pack as VendorPack;
  }
  throw new TwinError(
    'INVALID_ARGUMENT',
    `twin "${twin.name}" is not a Standard Webhooks sender; register one made by createStandardWebhooksPack({ name, eventTypes }) first`,
    { path: 'twin' },
  );
}

/** The app's own event types (an app endpoint's filterTypes name these, not operational ones). */
export function eventTypesOf(pack: VendorPack): readonly string[] {
  return pack.events.rules
    .filter((r) => r.endpointKinds?.includes('endpoint') ?? true)
    .flatMap((r) => r.types);
}
