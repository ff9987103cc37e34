// Where a delivery draws what it needs at random (trace span ids, retry jitter): a stream of the
// world's id source kept for deliveries. Deliveries run when their timing lets them, so drawing
// from the world's own stream would move the ids the next API call or walk step gets.
import type { IdSource } from '../../world/ids.js';

export function deliveryIds(ids: IdSource): IdSource {
  return ids.stream?.('delivery') ?? ids;
}
