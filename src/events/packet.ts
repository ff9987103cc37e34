// Whether a delivery record holds a whole packet. A record without a url, a body, or what its
// signed headers are made from (the message id and the secret reference) can never be sent
// as the vendor would send it, so it is refused before any claim: no attempt, no request.

/** The part of a packet a record lacks; the refusal reason is `incomplete_packet: <part>`. */
export type PacketPart = 'url' | 'body' | 'headers';

function text(value: unknown): boolean {
  return typeof value === 'string' && value !== '';
}

/** What a packet is made from, as a record holds it (each part checked as read). */
export interface PacketSource {
  readonly url?: unknown;
  readonly body?: unknown;
  readonly messageId?: unknown;
  readonly secretRef?: unknown;
}

/** The first missing part, or undefined for a complete packet. */
export function packetGap(record: PacketSource): PacketPart | undefined {
  if (!text(record.url)) return 'url';
  // An empty body is a body (some vendors send one); a missing one is not.
  if (typeof record.body !== 'string') return 'body';
  // A null secret reference says "unsigned", which only a kind that declares it may send (sign.ts).
  if (!text(record.messageId) || (record.secretRef !== null && !text(record.secretRef)))
    return 'headers';
  return undefined;
}

export function incompleteReason(part: PacketPart): string {
  return `incomplete_packet: ${part}`;
}
