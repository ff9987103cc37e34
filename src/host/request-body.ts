// A request body read on the host's ports, capped: past MAX_BODY_BYTES it is not held, so a
// client cannot make the process buffer what it likes before anyone looked at who sent it.
import type { IncomingMessage, ServerResponse } from 'node:http';

export const MAX_BODY_BYTES = 1024 * 1024;

/** The whole body, or 'too_large' as soon as it passes the cap. */
export async function readCappedBody(req: IncomingMessage): Promise<Buffer | 'too_large'> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) return 'too_large';
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** Answers 413 with `body` (each server's own error shape) and closes the connection. */
export function refuseTooLarge(res: ServerResponse, body: unknown): void {
  res.writeHead(413, { 'content-type': 'application/json', connection: 'close' });
  res.end(JSON.stringify(body));
}
