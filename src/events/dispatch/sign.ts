// Signing one attempt at send time: the endpoint's secrets (never an unsigned packet: no secret, no
// send — unless the record says "unsigned" with a null reference and its endpoint kind declares
// such packets, as GitHub sends a hook made without a secret), the pack's headers, the scheme's
// signature on the transport's clock, and the trace headers that continue the trace of the write
// that caused the event.
import { TwinError } from '../../errors.js';
import { isPromise } from '../../storage/secret-store.js';
import { attemptId, attemptType } from '../delivery-records.js';
import { getScheme } from '../signing/index.js';
import { continueTrace } from '../trace.js';
import { deliveryIds } from './delivery-ids.js';
import type { Attempt } from './attempt.js';
import type { DispatchContext } from './context.js';

export interface Signed {
  readonly headers: Record<string, string>;
  readonly trace: ReturnType<typeof continueTrace>;
}

/** Why an attempt could not be signed: reported, and the attempt fails without a request. */
export type Unsigned = 'missing_secret' | 'secret_error' | 'signing_error';

/** The headers to send, signed at `sentAt` (the transport's clock), or why there are none. */
export async function signAttempt(
  ctx: DispatchContext,
  attempt: Attempt,
  sentAt: number,
): Promise<Signed | Unsigned> {
  const secrets = await resolveSecrets(ctx, attempt, sentAt);
  if (typeof secrets === 'string') return secrets;
  return (await signedHeaders(ctx, attempt, secrets, sentAt)) ?? 'signing_error';
}

/**
 * The secrets to sign with (none for a declared unsigned packet), or why there are none (reported,
 * never sent unsigned).
 */
async function resolveSecrets(
  ctx: DispatchContext,
  { record, deliveryId, secretStamp, decl }: Attempt,
  at: number,
): Promise<readonly string[] | 'missing_secret' | 'secret_error'> {
  if (record.secretRef === null) {
    const kind = decl.endpoints.find((k) => k.type === record.endpointKind);
    if (kind?.unsignedWithoutSecret === true) return [];
    ctx.world.reportError(
      new TwinError(
        'INVALID_CONFIG',
        `delivery ${deliveryId}: its record has no secret reference, and endpoints of kind "${record.endpointKind}" are never sent unsigned`,
      ),
      'dispatch',
    );
    return 'missing_secret';
  }
  try {
    // A vault resolver may answer with a promise; the built-in stores answer at once (no tick),
    // and the PostgreSQL store from what it read under the same endpoint version.
    const found = ctx.world.secrets.resolve(record.secretRef, at, secretStamp);
    const secrets = isPromise(found) ? await found : found;
    if (secrets.length > 0) return secrets;
    ctx.world.reportError(
      new TwinError(
        'INVALID_CONFIG',
        `delivery ${deliveryId}: no secret is stored for reference "${record.secretRef}"; set it with world.secrets.set(ref, secret)`,
      ),
      'dispatch',
    );
    return 'missing_secret';
  } catch (error) {
    ctx.world.reportError(error, `resolving the secret of delivery ${deliveryId}`);
    return 'secret_error';
  }
}

/** The pack's headers, the signature and the trace headers; undefined when signing threw. */
async function signedHeaders(
  ctx: DispatchContext,
  { twin, decl, deliveryId, claim, record }: Attempt,
  secrets: readonly string[],
  sentAt: number,
): Promise<Signed | undefined> {
  const timestampSec = Math.floor(sentAt / 1000);
  // A deleted attempt tells nothing, as everywhere else in the kernel (decideAttemptFinish).
  const before =
    claim.number > 1
      ? await twin.get(attemptType(decl.recordType), attemptId(deliveryId, claim.number - 1))
      : undefined;
  const previous = before === undefined || before.deleted ? undefined : before.fields;
  const trace = continueTrace(
    record.traceparent === null
      ? undefined
      : {
          traceparent: record.traceparent,
          ...(record.tracestate ? { tracestate: record.tracestate } : {}),
        },
    () => deliveryIds(ctx.world.ids).bytes(8).toString('hex'),
  );
  try {
    const headers = {
      'content-type': 'application/json',
      ...(decl.headers?.({
        record: record as never,
        attempt: claim.number,
        previousOutcome:
          previous === undefined
            ? undefined
            : {
                state: String(previous.state),
                status: (previous.status as number | null) ?? null,
                reason: String(previous.reason ?? 'unknown'),
              },
        timestampSec,
      }) ?? {}),
      ...(secrets.length === 0
        ? {}
        : getScheme(decl.signing).sign({
            body: record.body,
            secrets,
            timestampSec,
            messageId: record.messageId,
          })),
      ...trace.headers,
    };
    return { headers, trace };
  } catch (error) {
    ctx.world.reportError(error, `signing delivery ${deliveryId}`);
    return undefined;
  }
}
