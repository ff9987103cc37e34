// What every Slack method shares: a route on `/api/<method>` (the SDK always POSTs), arguments
// read from the form (scalars as strings, structures as JSON strings), Slack's cursors
// (`response_metadata.next_cursor`, "" on the last page), and the records a method reads, typed
// through their record kinds.
import type { JsonObject, JsonValue, Twin } from '../../../src/index.js';
import type { Route, RouteContext } from '../../../src/host/index.js';
import type { SlackApp } from '../apps.js';
import { messageKind, renderTombstone, type SlackMessage } from '../messages.js';
import { renderChannelCreated } from '../render-events.js';
import { channelKind, type SlackChannel } from '../workspace.js';
import { SlackMethodError } from './errors.js';
import type { SlackPrincipal } from './principal.js';

export type Ctx = RouteContext<SlackPrincipal>;
export type SlackRoute = Route<SlackPrincipal>;
/** The message index the surface declares: a channel's messages without a scan. */
export const CHANNEL_INDEX = 'channel';

/**
 * A required argument. Slack tells a missing one (`invalid_arguments`, naming it in
 * `response_metadata.messages`) from one given that names nothing: an empty `channel` is
 * `channel_not_found`, as an unknown one is.
 */
export function str(input: JsonObject, key: string): string {
  const v = input[key];
  if (v === undefined || v === null)
    throw new SlackMethodError('invalid_arguments', `${key} is required`, {
      response_metadata: { messages: [`[ERROR] missing required field: ${key}`] },
    });
  if (typeof v !== 'string' || v === '')
    throw new SlackMethodError(
      key === 'channel' ? 'channel_not_found' : 'invalid_arguments',
      `${key} must name something`,
    );
  return v;
}

export function optionalStr(input: JsonObject, key: string): string | undefined {
  const v = input[key];
  return typeof v === 'string' && v !== '' ? v : undefined;
}

function limitOf(input: JsonObject, max = 1000): number {
  const raw = input.limit;
  if (raw === undefined || raw === '' || raw === '0') return 100;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1)
    throw new SlackMethodError('invalid_limit', 'limit must be a positive integer');
  return Math.min(n, max);
}

/** Slack's opaque cursor: here the offset of the next item, base64-encoded. */
function offsetOf(input: JsonObject): number {
  const cursor = input.cursor;
  if (cursor === undefined || cursor === '') return 0;
  const m = /^next:(\d+)$/.exec(Buffer.from(String(cursor), 'base64').toString('utf8'));
  if (m === null)
    throw new SlackMethodError('invalid_cursor', 'the cursor was not one this API gave');
  return Number(m[1]);
}

export function page<T>(items: readonly T[], input: JsonObject): { items: T[]; next: string } {
  const offset = offsetOf(input);
  const limit = limitOf(input);
  const slice = items.slice(offset, offset + limit);
  const next =
    offset + limit < items.length ? Buffer.from(`next:${offset + limit}`).toString('base64') : '';
  return { items: slice, next };
}

export async function channelOf(twin: Twin, p: SlackPrincipal, id: string): Promise<SlackChannel> {
  const c = await twin.read((view) => channelKind.read(view, id));
  // A direct message is only its two people's: to anyone else it does not exist.
  if (
    c === undefined ||
    c.team_id !== p.team ||
    (c.is_im === true && c.creator !== p.user && c.user !== p.user)
  )
    throw new SlackMethodError('channel_not_found', `no channel ${id}`);
  return c;
}

/** A message as the Web API shows it (the twin's bookkeeping left out). */
export function renderMessage(m: SlackMessage): JsonObject {
  // A deleted thread's parent: Slackbot's tombstone, whatever it said before.
  if (m.subtype === 'tombstone') return renderTombstone(m);
  const { client_msg_id: _c, channel: _ch, ...shown } = m;
  return messageKind.json(shown);
}

/** A direct message as Slack shows it to `caller`: `user` is the other person. */
export function renderIm(c: SlackChannel, caller: string): JsonObject {
  return {
    id: c.id,
    created: c.created,
    is_im: true,
    is_org_shared: false,
    user: (c.creator === caller ? c.user : c.creator) ?? '',
    is_user_deleted: false,
    priority: 0,
  };
}

export function renderChannel(c: SlackChannel, isMember = true, caller = ''): JsonObject {
  if (c.is_im === true) return renderIm(c, caller);
  return {
    ...renderChannelCreated(c),
    is_member: isMember,
    topic: { value: '', creator: '', last_set: 0 },
    purpose: { value: '', creator: '', last_set: 0 },
  };
}

/** An argument the SDK sent JSON-encoded (blocks, view, manifest). */
export function parsed(input: JsonObject, key: string): JsonValue | undefined {
  const v = input[key];
  if (typeof v !== 'string') return v;
  try {
    return JSON.parse(v) as JsonValue;
  } catch {
    throw new SlackMethodError('invalid_arguments', `${key} must be JSON`);
  }
}

/** `blocks`, when given: an array of Block Kit objects (the pack checks each). */
export function blocksOf(input: JsonObject): JsonObject[] | undefined {
  const blocks = parsed(input, 'blocks');
  if (blocks === undefined || blocks === '') return undefined;
  if (!Array.isArray(blocks))
    throw new SlackMethodError('invalid_blocks', 'blocks must be a JSON array of blocks');
  return blocks as JsonObject[];
}

export const ok = (body: JsonObject): JsonObject => ({ ok: true, ...body });

export function route(
  name: string,
  kind: 'read' | 'write',
  handle: (ctx: Ctx) => Promise<JsonObject>,
  events?: string[],
): SlackRoute {
  return {
    method: 'POST',
    path: `/api/${name}`,
    sdk: name,
    kind,
    handle,
    ...(events === undefined ? {} : { events }),
  };
}

export function botApp(p: SlackPrincipal): SlackApp {
  if (p.app === undefined)
    throw new SlackMethodError('not_allowed_token_type', 'this method takes a bot token (xoxb-)');
  return p.app;
}

/** A message ts (`1767225600.000100`) as an exact number of microseconds. */
export function tsValue(ts: string): bigint {
  const [whole, fraction = ''] = ts.split('.');
  return BigInt(whole!) * 1_000_000n + BigInt(fraction.padEnd(6, '0').slice(0, 6));
}

/** `oldest` / `latest`: a Unix time in seconds, fractions allowed; anything else is refused. */
export function tsBound(value: unknown, name: 'oldest' | 'latest'): bigint | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const text = typeof value === 'number' ? String(value) : value;
  if (typeof text !== 'string' || !/^\d{1,12}(\.\d{1,6})?$/.test(text))
    throw new SlackMethodError(
      `invalid_ts_${name}`,
      `${name} must be a Unix time in seconds, like 1767225600.000100`,
    );
  return tsValue(text);
}
