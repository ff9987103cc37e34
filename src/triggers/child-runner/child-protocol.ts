// What the child-process runner and its child say to each other over the IPC channel (JSON), and
// what a routine running in the child is given. One child per run (or per listing): the parent
// sends one request, the child answers once and exits.
import type { JsonValue } from '../../log/json-value.js';
import type { TriggerEnvelope } from '../envelope.js';

/** What a routine in the child knows of its run: the world stays with the parent. */
export interface ChildRoutineContext {
  readonly routineId: string;
  readonly runKey: string;
  readonly attempt: number;
  readonly recordId: string;
  readonly envelope: TriggerEnvelope;
}

/** A routine the child runs; as in process, throwing means "not finished, run me again". */
export type ChildRoutineFn = (
  input: JsonValue,
  context: ChildRoutineContext,
) => Promise<JsonValue> | JsonValue;

export type ToChild =
  | { readonly kind: 'list' }
  | {
      readonly kind: 'run';
      readonly input: JsonValue;
      readonly context: ChildRoutineContext;
      /** A folder for the file run lock, when the module exports no lock of its own. */
      readonly lockDir: string | null;
    };

export type FromChild =
  | { readonly kind: 'ids'; readonly ids: readonly string[] }
  | { readonly kind: 'done'; readonly result: JsonValue }
  | { readonly kind: 'threw'; readonly name: string; readonly message: string }
  | { readonly kind: 'unknown'; readonly ids: readonly string[] }
  | { readonly kind: 'locked' }
  | { readonly kind: 'unloadable'; readonly message: string };
