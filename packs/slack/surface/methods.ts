// The Web API methods the Slack surface serves, family by family, each onto the Slack pack's
// operations (one atomic action per write) or its state (reads never append).
import type { SlackRoute } from './route.js';
import { APP_METHODS } from './app-methods.js';
import { CHAT_METHODS } from './chat.js';
import { CONVERSATION_METHODS } from './conversations.js';
import { PEOPLE_METHODS } from './people.js';

export { CHANNEL_INDEX } from './route.js';

export const SLACK_METHODS: readonly SlackRoute[] = [
  ...PEOPLE_METHODS,
  ...CHAT_METHODS,
  ...CONVERSATION_METHODS,
  ...APP_METHODS,
];
