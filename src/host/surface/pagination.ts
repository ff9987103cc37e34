// Cursor pagination over a list already in the vendor's order (Stripe: newest first): a page of at
// most `limit` items after `startingAfter` or before `endingBefore` (ids), and whether more
// follow in the direction read. An unknown cursor id is the caller's refusal to render.
export interface PageRequest {
  readonly limit: number;
  readonly startingAfter?: string | undefined;
  readonly endingBefore?: string | undefined;
}

export interface Page<T> {
  readonly items: readonly T[];
  readonly hasMore: boolean;
}

/** `undefined` when a cursor names no item of the list. */
export function cursorPage<T>(
  ordered: readonly T[],
  idOf: (item: T) => string,
  page: PageRequest,
): Page<T> | undefined {
  if (page.startingAfter !== undefined) {
    const at = ordered.findIndex((item) => idOf(item) === page.startingAfter);
    if (at < 0) return undefined;
    const items = ordered.slice(at + 1, at + 1 + page.limit);
    return { items, hasMore: at + 1 + page.limit < ordered.length };
  }
  if (page.endingBefore !== undefined) {
    const at = ordered.findIndex((item) => idOf(item) === page.endingBefore);
    if (at < 0) return undefined;
    const from = Math.max(0, at - page.limit);
    return { items: ordered.slice(from, at), hasMore: from > 0 };
  }
  return { items: ordered.slice(0, page.limit), hasMore: ordered.length > page.limit };
}
