// GET /dispatches/<id> on the ingress host: where a 202's Location points. Answers the dispatch's
// state and, once it ran, its run's answer (see deferred/dispatch-status.ts); the dispatch is read
// from the store, so any host of the same store answers for a dispatch another host took in.
import { TwinError } from '../../errors.js';
import { declareDispatchIndexes } from '../deferred/dispatch-record.js';
import { DISPATCH_PATH, readDispatchStatus } from '../deferred/dispatch-status.js';
import { unknownDispatch } from '../deferred/dispatch-step.js';
import type { Twin } from '../../world/twin.js';
import { errorStatus, type HttpAnswer } from './status.js';

const ID = /^dsp_[0-9a-f]{32}$/;

/** The dispatch id a request path names, or undefined when the path is not a dispatch's. */
export function dispatchPath(url: string | undefined): string | undefined {
  if (url === undefined || !url.startsWith(DISPATCH_PATH)) return undefined;
  const rest = url.split('?')[0]!.slice(DISPATCH_PATH.length);
  try {
    return decodeURIComponent(rest);
  } catch {
    return rest;
  }
}

export async function answerDispatch(
  twin: Twin,
  method: string | undefined,
  id: string,
): Promise<HttpAnswer> {
  if (method !== 'GET' && method !== 'HEAD')
    return {
      status: 405,
      headers: { allow: 'GET' },
      body: new TwinError('INVALID_ARGUMENT', 'a dispatch is read with GET', {
        path: 'method',
      }).toJSON(),
    };
  if (!ID.test(id)) return errorStatus(unknownDispatch(id));
  declareDispatchIndexes(twin);
  const status = await twin.read((view) => readDispatchStatus(view, id));
  if (status === undefined) return errorStatus(unknownDispatch(id));
  return { status: 200, headers: { 'cache-control': 'no-store' }, body: status };
}
