// Concurrency gates, kept in the store: one per (tenant, trigger, key), holding the dispatches that
// run now (at most `limit`) and a queue of tickets, first come first served. Only the dispatch at
// the head of the queue may take a free slot; when a slot frees or the head moves on, the new head
// is made due at once (a "nudge"), so the worker that finds it runs it. Every change happens in
// an atomic action of the trigger twin: across processes and hosts, the limit holds.
//
// These decisions find a ticket's dispatch through an index, so they run in an atomic action of
// their own (whose view shows what it staged), never batched where a lookup could miss a ticket
// handed out earlier in the same batch.
import { sha256Hex } from '../../log/canonical-json.js';
import type { Write } from '../../log/write.js';
import type { ReadView } from '../../state/read-view.js';
import type { Resource } from '../../state/resource.js';
import {
  DISPATCH_TICKET_INDEX,
  DISPATCH_TYPE,
  dispatchWrite,
  GATE_TYPE,
  readDispatch,
} from './dispatch-record.js';
import { recordKind } from '../../state/record-kind.js';

export interface GateFields {
  readonly tenantId: string;
  readonly triggerId: string;
  readonly key: string;
  readonly limit: number;
  /** Dispatches holding a slot, in the order they took it. */
  readonly running: readonly string[];
  /** The lowest ticket that may still be waiting. */
  readonly head: number;
  /** The next ticket to hand out. */
  readonly tail: number;
}

/** A gate as one decision changes it; written once, at the end, by gateWrite. */
export interface Gate {
  readonly id: string;
  tenantId: string;
  triggerId: string;
  key: string;
  limit: number;
  running: string[];
  head: number;
  tail: number;
  changed: boolean;
}

export function gateId(tenantId: string, triggerId: string, key: string): string {
  return `dgt_${sha256Hex(`${tenantId}\u0000${triggerId}\u0000${key}`).slice(0, 32)}`;
}

function ticketKey(gate: string, ticket: number): string {
  return `${gate}/${String(ticket).padStart(12, '0')}`;
}

/** Gate records, typed (src/state/record-kind.ts). */
const gateKind = recordKind<GateFields>({ type: GATE_TYPE });

/** A concurrency gate's fields, typed: the one place one is read out of `Resource.fields`. */
function gateFieldsOf(resource: Resource): GateFields {
  return gateKind.of(resource);
}

export function loadGate(
  view: ReadView,
  id: string,
  init: { tenantId: string; triggerId: string; key: string; limit: number },
): Gate {
  const r = view.get(GATE_TYPE, id);
  const f = r === undefined || r.deleted ? undefined : gateFieldsOf(r);
  if (f === undefined) return { id, ...init, running: [], head: 0, tail: 0, changed: true };
  const gate: Gate = {
    id,
    tenantId: f.tenantId,
    triggerId: f.triggerId,
    key: f.key,
    limit: f.limit,
    running: [...f.running],
    head: f.head,
    tail: f.tail,
    changed: false,
  };
  // The newest plan's limit wins: a route given another limit applies it from its next decision.
  if (init.limit !== f.limit) {
    gate.limit = init.limit;
    gate.changed = true;
  }
  return gate;
}

/** A place in the queue, for a dispatch that arrives at the gate. */
export function join(gate: Gate): { ticket: number; gateTicket: string } {
  const ticket = gate.tail;
  gate.tail++;
  gate.changed = true;
  return { ticket, gateTicket: ticketKey(gate.id, ticket) };
}

/** The dispatch holding `ticket`, if it still waits in the queue. */
function waitingAt(view: ReadView, gate: Gate, ticket: number): string | undefined {
  for (const r of view.lookup(DISPATCH_TYPE, DISPATCH_TICKET_INDEX, ticketKey(gate.id, ticket))) {
    const d = readDispatch(view, r.id);
    if (d !== undefined && d.state === 'queued') return r.id;
  }
  return undefined;
}

/**
 * What one decision changes that its view does not show yet: a dispatch `arriving` at the gate
 * (its ticket is not in the index yet), one `leaving` the queue (the index still shows it queued).
 */
export interface InFlight {
  readonly arriving?: { readonly id: string; readonly ticket: number };
  readonly leaving?: string;
}

/**
 * Moves the head past tickets whose dispatch left the queue (ran, expired, was cancelled) and
 * answers the head's dispatch, if one still waits.
 */
export function advance(view: ReadView, gate: Gate, inFlight: InFlight = {}): string | undefined {
  while (gate.head < gate.tail) {
    if (inFlight.arriving !== undefined && gate.head === inFlight.arriving.ticket)
      return inFlight.arriving.id;
    const id = waitingAt(view, gate, gate.head);
    if (id !== undefined && id !== inFlight.leaving) return id;
    gate.head++;
    gate.changed = true;
  }
  return undefined;
}

export function hasSlot(gate: Gate): boolean {
  return gate.running.length < gate.limit;
}

export function take(gate: Gate, dispatchId: string): void {
  gate.running.push(dispatchId);
  gate.changed = true;
}

export function release(gate: Gate, dispatchId: string): void {
  const i = gate.running.indexOf(dispatchId);
  if (i < 0) return;
  gate.running.splice(i, 1);
  gate.changed = true;
}

/**
 * After a slot freed or the head moved: when a slot is free, the waiting head is made due now so
 * a worker finds it (unless it is the one arriving: that decision writes it already).
 */
export function nudge(
  view: ReadView,
  gate: Gate,
  nowIso: string,
  inFlight: InFlight = {},
): Write[] {
  const head = advance(view, gate, inFlight);
  if (head === undefined || head === inFlight.arriving?.id || !hasSlot(gate)) return [];
  const d = readDispatch(view, head);
  if (d === undefined || (d.dueAt !== null && d.dueAt <= nowIso)) return [];
  return [dispatchWrite('nudge', head, { dueAt: nowIso })];
}

export function gateWrite(gate: Gate): Write[] {
  if (!gate.changed) return [];
  return [
    {
      operation: 'dispatch.gate',
      subjectType: GATE_TYPE,
      subjectId: gate.id,
      fields: {
        tenantId: gate.tenantId,
        triggerId: gate.triggerId,
        key: gate.key,
        limit: gate.limit,
        running: gate.running,
        head: gate.head,
        tail: gate.tail,
      } satisfies GateFields,
      actor: 'system',
    },
  ];
}
