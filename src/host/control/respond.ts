// Answers of the control plane (/_twinworld/…): JSON in, JSON out, refusals as
// {error: {code, message, path}} with the kernel's stable codes.
import { TwinError } from '../../errors.js';
import type { JsonObject, JsonValue } from '../../log/json-value.js';

/** Serves `/_twinworld/<name><rest>`; `rest` is what follows the name ("" or "/…"). */
export type ControlHandler = (
  request: Request,
  url: URL,
  rest: string,
) => Promise<Response> | Response;

export function jsonResponse(
  status: number,
  body: JsonValue,
  headers: Readonly<Record<string, string>> = {},
): Response {
  // 204 and 304 answers carry no body at all (a Response refuses one).
  return new Response(status === 204 || status === 304 ? null : JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });
}

/** A control request's body: JSON, or form fields; empty is `{}`. */
export async function controlInput(request: Request): Promise<JsonObject> {
  const text = await request.text();
  if (text.trim() === '') return {};
  const type = request.headers.get('content-type') ?? '';
  if (type.includes('application/x-www-form-urlencoded'))
    return Object.fromEntries(new URLSearchParams(text));
  try {
    const value = JSON.parse(text) as unknown;
    if (value !== null && typeof value === 'object' && !Array.isArray(value))
      return value as JsonObject;
  } catch {
    // refused below
  }
  throw new TwinError(
    'INVALID_BODY',
    'a control request body must be a JSON object or form fields',
    {
      path: 'body',
    },
  );
}
