// Messages: the app says "this happened" (an event type and a JSON payload); the pack sends it
// to every endpoint that takes the type, as {type, timestamp, data}.
import { commit, type JsonObject, type Twin } from '../../src/index.js';
import { VendorError } from '../kit/errors.js';
import { checker } from '../kit/input.js';
import { swIds } from './ids.js';
import { eventTypesOf, owningPack } from './owning-pack.js';

export type SwMessage = { id: string; eventType: string; payload: JsonObject; timestamp: string };

const check = checker('standard-webhooks');

export async function sendMessage(
  twin: Twin,
  input: { eventType: string; payload: JsonObject },
): Promise<SwMessage> {
  const known = eventTypesOf(owningPack(twin));
  const eventType = check.string(input?.eventType, 'eventType');
  if (!known.includes(eventType)) {
    throw new VendorError(
      'standard-webhooks',
      'invalid_input',
      'unknown_event_type',
      `event type "${eventType}" is not declared by this sender; known: ${known.join(', ')}`,
      { path: 'eventType' },
    );
  }
  const payload = check.object(input.payload ?? {}, 'payload');
  const message: SwMessage = {
    id: swIds.message(twin.world.ids),
    eventType,
    payload,
    timestamp: new Date(twin.world.clock.now()).toISOString(),
  };
  const done = await twin.applyAtomic(() =>
    commit(
      {
        operation: 'message.create',
        subjectType: 'message',
        subjectId: message.id,
        fields: message,
      },
      message,
    ),
  );
  return done.result;
}
