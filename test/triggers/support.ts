// Shared fixtures for the trigger tests: a world on a virtual clock with an engine and the
// in-process runner, envelopes with sensible defaults, and a TwinError assertion.
import { expect } from 'vitest';
import { TwinError, type TwinErrorCode } from '../../src/errors.js';
import type { JsonValue } from '../../src/log/json-value.js';
import type { StorageBackend } from '../../src/storage/port.js';
import { VirtualClock } from '../../src/world/clock.js';
import { openWorld, type World } from '../../src/world/world.js';
import { TriggerEngine } from '../../src/triggers/engine/engine.js';
import {
  createTriggerEnvelope,
  type TriggerEnvelope,
  type TriggerEnvelopeInput,
} from '../../src/triggers/envelope.js';
import { InProcessRunner } from '../../src/triggers/in-process-runner.js';

export const T0 = '2026-03-01T12:00:00.000Z';

export function envelopeInput(overrides: Partial<TriggerEnvelopeInput> = {}): TriggerEnvelopeInput {
  return {
    tenantId: 'acme',
    scopeId: 'store-1',
    source: { kind: 'custom', provider: 'shop' },
    triggerId: 'order.placed',
    eventId: 'ord_1',
    dedupeKey: 'order:ord_1',
    occurredAt: T0,
    scheduledAt: T0,
    payload: { order: 'ord_1', total: 4200 },
    ...overrides,
  };
}

export function envelope(overrides: Partial<TriggerEnvelopeInput> = {}): TriggerEnvelope {
  return createTriggerEnvelope(envelopeInput(overrides));
}

export interface Harness {
  readonly world: World;
  readonly clock: VirtualClock;
  readonly runner: InProcessRunner;
  readonly engine: TriggerEngine;
  /** Inputs each routine call received, in order. */
  readonly calls: { routineId: string; input: JsonValue; runKey: string; attempt: number }[];
}

/** A started engine with routine "fulfil" (answers {fulfilled: order}) routed from "order.placed". */
export async function harness(
  options: {
    root?: string;
    backend?: StorageBackend;
    clock?: VirtualClock;
    seed?: string;
    start?: boolean;
  } = {},
): Promise<Harness> {
  const clock = options.clock ?? new VirtualClock(T0);
  const world = openWorld({
    root: options.root ?? ':memory:',
    clock,
    seed: options.seed ?? 'triggers',
    ...(options.backend === undefined ? {} : { backend: options.backend }),
  });
  const calls: Harness['calls'] = [];
  const runner = new InProcessRunner(world).register('fulfil', async (input, ctx) => {
    calls.push({ routineId: ctx.routineId, input, runKey: ctx.runKey, attempt: ctx.attempt });
    return { fulfilled: (input as { order?: JsonValue }).order ?? null };
  });
  const engine = new TriggerEngine({ world, runner });
  engine.registerRoute({
    triggerId: 'order.placed',
    routineId: 'fulfil',
    buildInput: (e) => e.payload,
  });
  if (options.start !== false) await engine.start();
  return { world, clock, runner, engine, calls };
}

/** Asserts `fn` throws (or rejects with) a TwinError of `code` (and `path`), and returns it. */
export async function expectRefusal(
  fn: () => unknown,
  code: TwinErrorCode,
  path?: string,
): Promise<TwinError> {
  let caught: unknown;
  try {
    await fn();
  } catch (error) {
    caught = error;
  }
  expect(caught, `expected a TwinError ${code}`).toBeInstanceOf(TwinError);
  const e = caught as TwinError;
  expect(e.code, e.message).toBe(code);
  if (path !== undefined) expect(e.path, e.message).toBe(path);
  return e;
}

/** The operations of the trigger twin's log, in order. */
export async function operations(world: World, twin = 'triggers'): Promise<string[]> {
  return (await world.twin(twin).entries()).map((e) => e.operation);
}

/** Everything an async iterable yields (Node 20 has no Array.fromAsync). */
export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}
