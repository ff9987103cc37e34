// GET /dispatches/<id>?key=<capability> on the ingress host: where a 202's Location points. Answers
// the dispatch's state and, once it ran, its run's answer (see deferred/dispatch-status.ts) — only to
// a caller holding the capability the 202 handed out (dispatch-capability.ts); without it, an unknown
// id and another tenant's id get the same 404. The dispatch is read from the store, so any host of the
// same store answers for a dispatch another host took in.
import { declareDispatchIndexes } from '../../triggers/deferred/dispatch-record.js';
import { DISPATCH_PATH, readDispatchStatus } from '../../triggers/deferred/dispatch-status.js';
import { unknownDispatch } from '../../triggers/deferred/dispatch-step.js';
import type { Twin } from '../../world/twin.js';
import { CAPABILITY_PARAM, type DispatchCapabilities } from './dispatch-capability.js';
import { errorStatus, type HttpAnswer } from './status.js';

const ID = /^dsp_[0-9a-f]{32}$/;

export interface DispatchRequest {
  readonly id: string;
  /** The capability the Location carried, if the request has one. */
  readonly key: string | null;
}

/** The dispatch a request path names, or undefined when the path is not a dispatch's. */
export function dispatchPath(url: string | undefined): DispatchRequest | undefined {
  if (url === undefined || !url.startsWith(DISPATCH_PATH)) return undefined;
  const query = url.indexOf('?');
  const rest = (query < 0 ? url : url.slice(0, query)).slice(DISPATCH_PATH.length);
  const key = query < 0 ? null : new URLSearchParams(url.slice(query + 1)).get(CAPABILITY_PARAM);
  try {
    return { id: decodeURIComponent(rest), key };
  } catch {
    return { id: rest, key };
  }
}

export async function answerDispatch(
  twin: Twin,
  capabilities: DispatchCapabilities,
  method: string | undefined,
  request: DispatchRequest,
): Promise<HttpAnswer> {
  // The same 405 the ingress paths answer on this host: one error code for one mistake.
  if (method !== 'GET' && method !== 'HEAD')
    return {
      status: 405,
      headers: { allow: 'GET, HEAD' },
      body: { error: 'METHOD_NOT_ALLOWED', message: 'a dispatch is read with GET (or HEAD)' },
    };
  const { id } = request;
  // One answer for every id the caller cannot prove: it learns nothing of which exist.
  if (!ID.test(id) || !(await capabilities.verify(id, request.key)))
    return errorStatus(unknownDispatch(id));
  declareDispatchIndexes(twin);
  const status = await twin.read((view) => readDispatchStatus(view, id));
  if (status === undefined) return errorStatus(unknownDispatch(id));
  return { status: 200, headers: { 'cache-control': 'no-store' }, body: status };
}
