// The answer contract of ingest, shared by every source: what happened to one envelope, in a
// shape a host can send back as the JSON body of its HTTP answer.
import type { JsonValue } from '../log/json-value.js';

export type IngestStatus = 'triggered' | 'filtered' | 'duplicate' | 'in_progress' | 'deferred';

interface AnswerBase {
  readonly tenantId: string;
  readonly triggerId: string;
  readonly dedupeKey: string;
  /** The trigger record in the trigger twin (derived from tenant and dedupeKey). */
  readonly recordId: string;
  /** The nominal time of the FIRST delivery of this key: retries never move it. */
  readonly scheduledAt: string;
}

/** The routine reached a terminal result (which may itself be a business failure). */
export interface TriggeredAnswer extends AnswerBase {
  readonly status: 'triggered';
  readonly routineId: string;
  readonly runKey: string;
  readonly attempt: number;
  readonly routineResult: JsonValue;
}

/** A route filter skipped it; safe to acknowledge. */
export interface FilteredAnswer extends AnswerBase {
  readonly status: 'filtered';
  readonly routineId: string;
}

/**
 * This key already has a terminal record — or, with `replayOf`, this packet's signed content was
 * already received under another delivery id (a replay: never run); safe to acknowledge.
 */
export interface DuplicateAnswer extends AnswerBase {
  readonly status: 'duplicate';
  /**
   * What the first delivery answered. Only a replay can see the first one still in progress,
   * failed, or its record already pruned by retention.
   */
  readonly original: 'triggered' | 'filtered' | 'in_progress' | 'failed' | 'pruned';
  /** The first run's result when it was triggered, else null. */
  readonly routineResult: JsonValue;
  /** For a replay: the dedupe key the same signed content was first received under. */
  readonly replayOf?: string;
  /** For a key a deferred dispatch took in: the dispatch, whose run this answer reports. */
  readonly dispatchId?: string;
}

/** Still running (here or in another process); keep the retry, or schedule recovery. */
export interface InProgressAnswer extends AnswerBase {
  readonly status: 'in_progress';
  readonly attempt: number;
}

/**
 * Taken in, to run later (a route's or the call's dispatch options: delay, debounce, concurrency,
 * ttl); safe to acknowledge. Over HTTP: 202 Accepted, `Location: /dispatches/<dispatchId>?key=<capability>`.
 * A later duplicate of the key answers this again until the dispatch ran, then as dedupe does.
 */
export interface DeferredAnswer extends AnswerBase {
  readonly status: 'deferred';
  readonly routineId: string;
  /** The deferred dispatch this envelope opened or joined (a debounce coalesces many keys into one). */
  readonly dispatchId: string;
  readonly state: 'delayed' | 'debounced' | 'queued' | 'dispatched' | 'expired' | 'cancelled';
  /** When the worker takes it up next; null while it waits for a concurrency slot, or is done. */
  readonly dueAt: string | null;
  /** When it is meant to run (the delay's end, the quiet period's end, when it was queued). */
  readonly runAt: string;
  readonly expiresAt: string | null;
  /** Envelopes the dispatch has absorbed so far, this one included. */
  readonly pings: number;
  /**
   * The run this envelope's dispatch ran as (its trigger record id), once it was dispatched; null
   * before. A ping a leading debounce absorbs after running the first says which run took it.
   */
  readonly intoRunId: string | null;
}

export type IngestAnswer =
  TriggeredAnswer | FilteredAnswer | DuplicateAnswer | InProgressAnswer | DeferredAnswer;

/**
 * Slack checking a Request URL (`url_verification`, signed like every callback): nothing is
 * ingested or recorded; the answer echoes the challenge, which is what makes Slack take the URL.
 */
export interface ChallengeAnswer {
  readonly status: 'challenge';
  readonly challenge: string;
}

/** What a webhook ingress answers a packet: what ingesting it did, or a handshake's echo. */
export type WebhookAnswer = IngestAnswer | ChallengeAnswer;
