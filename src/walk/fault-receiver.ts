// A fault-injecting receiver: answers by its profile (script, seeded weighted mix, virtual latency
// against the sender's timeout) and records what it got and whether it kept it. Its draws use its
// own seed, so adding a receiver never shifts the world's ids.
import { TwinError } from '../errors.js';
import { getScheme } from '../events/signing/index.js';
import type { InProcessRequest } from '../events/transports/in-process-transport.js';
import { TransportFailure, type TransportResponse } from '../events/transports/transport.js';
import { isoAt, type Clock } from '../world/clock.js';
import { SeededIds } from '../world/ids.js';
import {
  faultLabel,
  validateFaultProfile,
  type Fault,
  type FaultProfile,
} from './fault-profile.js';

/** What the walk knows about a packet from its observer (the packet's headers object is the key). */
export interface PacketIdentity {
  readonly pack: string;
  readonly deliveryId: string;
  readonly attempt: number;
  readonly eventType: string;
}

export interface ReceivedRequest {
  /** 1, 2, 3… in arrival order. */
  readonly n: number;
  /** World clock, ISO, when the packet arrived. */
  readonly at: string;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  readonly packet: PacketIdentity | undefined;
  /** The profile's answer, as a label: "200", "429 retry-after 60", "timeout", "accept-then-crash". */
  readonly answer: string;
  /** Virtual processing time drawn for this request. */
  readonly latencyMs: number;
  /** What the sender got: a status, or the failure it saw. */
  readonly senderSaw: number | 'timeout' | 'connection_reset' | 'not_sent';
  /** The receiver kept the packet (processed it and meant to acknowledge it). */
  readonly accepted: boolean;
  readonly signature: 'valid' | 'invalid' | 'unchecked';
}

export interface ReceiverStats {
  readonly requests: number;
  readonly accepted: number;
  /** Requests whose answer the sender never saw as a status (timeouts, resets, refusals). */
  readonly unanswered: number;
  /** Accepted packets the sender could not know were accepted. */
  readonly acceptedButUnknown: number;
}

export class FaultReceiver {
  readonly requests: ReceivedRequest[] = [];
  private readonly profile: FaultProfile;
  private readonly draws: SeededIds;
  private scriptIndex = 0;
  private readonly totalWeight: number;

  constructor(
    readonly name: string,
    readonly url: string,
    profile: FaultProfile | undefined,
    private readonly clock: Clock,
    defaultSeed: string,
    private readonly identify: (
      headers: Readonly<Record<string, string>>,
    ) => PacketIdentity | undefined = () => undefined,
  ) {
    this.profile = validateFaultProfile(profile, `receiver "${name}"`);
    this.draws = new SeededIds(clock, this.profile.seed ?? defaultSeed);
    this.totalWeight = (this.profile.mix ?? []).reduce((sum, w) => sum + w.weight, 0);
  }

  /** Packets the receiver kept, in arrival order. */
  get accepted(): ReceivedRequest[] {
    return this.requests.filter((r) => r.accepted);
  }

  stats(): ReceiverStats {
    const unanswered = this.requests.filter((r) => typeof r.senderSaw !== 'number');
    return {
      requests: this.requests.length,
      accepted: this.accepted.length,
      unanswered: unanswered.length,
      acceptedButUnknown: unanswered.filter((r) => r.accepted).length,
    };
  }

  /** The in-process handler: answers a status, or throws the TransportFailure the sender sees. */
  handle(request: InProcessRequest): TransportResponse {
    // Both draws happen for every request, so a profile's script never shifts later draws.
    const mixDraw = this.draws.random();
    const latencyDraw = this.draws.random();
    const fault = this.outageAt(request.receivedAt) ?? this.pick(mixDraw);
    const latencyMs = this.latency(latencyDraw);
    const late = latencyMs >= request.timeoutMs;
    const processes = fault !== 'timeout' && fault !== 'reset' && fault !== 'refused';
    let signature: ReceivedRequest['signature'] = 'unchecked';
    if (processes && this.profile.verify !== undefined)
      signature = this.verify(request) ? 'valid' : 'invalid';
    let status: number | undefined;
    let retryAfterSec: number | undefined;
    if (typeof fault === 'number') status = fault;
    else if (typeof fault === 'object') ({ status, retryAfterSec } = fault);
    if (signature === 'invalid' && status !== undefined) {
      status = 401;
      retryAfterSec = undefined;
    }
    const accepted =
      processes &&
      signature !== 'invalid' &&
      (fault === 'accept-then-crash' || (status !== undefined && status >= 200 && status < 300));
    let senderSaw: ReceivedRequest['senderSaw'];
    if (fault === 'timeout' || (processes && late)) senderSaw = 'timeout';
    else if (fault === 'reset' || fault === 'accept-then-crash') senderSaw = 'connection_reset';
    else if (fault === 'refused') senderSaw = 'not_sent';
    else senderSaw = status!;
    this.requests.push({
      n: this.requests.length + 1,
      at: isoAt(request.receivedAt),
      url: request.url,
      headers: request.headers,
      body: request.body,
      packet: this.identify(request.headers),
      answer: faultLabel(fault),
      latencyMs,
      senderSaw,
      accepted,
      signature,
    });
    if (typeof senderSaw !== 'number') throw new TransportFailure(senderSaw);
    return retryAfterSec === undefined
      ? { status: senderSaw }
      : { status: senderSaw, retryAfterSec };
  }

  private outageAt(at: number): Fault | undefined {
    for (const o of this.profile.outages ?? [])
      if (at >= Date.parse(o.from) && at < Date.parse(o.until)) return o.answer ?? 503;
    return undefined;
  }

  private pick(draw: number): Fault {
    const scripted = this.profile.script?.[this.scriptIndex];
    if (scripted !== undefined) {
      this.scriptIndex++;
      return scripted;
    }
    const mix = this.profile.mix;
    if (mix === undefined) return 200;
    let at = draw * this.totalWeight;
    for (const w of mix) {
      if (at < w.weight) return w.answer;
      at -= w.weight;
    }
    return mix[mix.length - 1]!.answer;
  }

  private latency(draw: number): number {
    const l = this.profile.latencyMs;
    if (l === undefined) return 0;
    if (typeof l === 'number') return l;
    return Math.round(l[0] + draw * (l[1] - l[0]));
  }

  private verify(request: InProcessRequest): boolean {
    const v = this.profile.verify!;
    const secrets = typeof v.secrets === 'function' ? v.secrets() : v.secrets;
    try {
      getScheme(v.scheme).verify({
        headers: request.headers,
        rawBody: request.body,
        secrets,
        nowSec: Math.floor(this.clock.now() / 1000),
        ...(v.toleranceSec === undefined ? {} : { toleranceSec: v.toleranceSec }),
      });
      return true;
    } catch (error) {
      if (
        error instanceof TwinError &&
        ['BAD_SIGNATURE', 'MISSING_HEADER', 'STALE_TIMESTAMP'].includes(error.code)
      )
        return false;
      throw error;
    }
  }
}
