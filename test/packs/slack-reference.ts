// Slack's own types as a reference, checked by the compiler (`npm run typecheck`): each list
// below must name exactly the required keys of the Slack type it is declared with — a key Slack
// adds or drops breaks the build — and slack-types.test.ts checks every rendered payload holds
// them at run time. Types come from @slack/types (events) and @slack/bolt (envelopes, actions,
// commands).
import type { BlockAction, ButtonAction, EnvelopedEvent, SlashCommand } from '@slack/bolt';
import type {
  AppHomeOpenedEvent,
  AppMentionEvent,
  GenericMessageEvent,
  MemberJoinedChannelEvent,
  ReactionAddedEvent,
} from '@slack/types';

/** Drops index signatures (`[key: string]: any`), which would swallow every key. */
type Known<T> = { [K in keyof T as string extends K ? never : number extends K ? never : K]: T[K] };
/** Keys a value must carry: not optional, and not typed `undefined` (GenericMessageEvent's `subtype`). */
type RequiredKeys<T> = {
  [K in keyof Known<T>]-?: {} extends Pick<Known<T>, K>
    ? never
    : undefined extends Known<T>[K]
      ? never
      : K;
}[keyof Known<T>] &
  string;
/** Exactly the required keys of T: a missing or an extra entry does not compile. */
export type KeyList<T> = { readonly [K in RequiredKeys<T>]: true };

export const ENVELOPE: KeyList<EnvelopedEvent> = {
  token: true,
  team_id: true,
  api_app_id: true,
  event: true,
  type: true,
  event_id: true,
  event_time: true,
};
export const MESSAGE: KeyList<GenericMessageEvent> = {
  type: true,
  event_ts: true,
  channel: true,
  user: true,
  ts: true,
  channel_type: true,
};
export const APP_MENTION: KeyList<AppMentionEvent> = {
  type: true,
  text: true,
  ts: true,
  channel: true,
  event_ts: true,
};
export const REACTION_ADDED: KeyList<ReactionAddedEvent> = {
  type: true,
  user: true,
  reaction: true,
  item_user: true,
  item: true,
  event_ts: true,
};
export const REACTION_ITEM: KeyList<ReactionAddedEvent['item']> = {
  type: true,
  channel: true,
  ts: true,
};
export const MEMBER_JOINED_CHANNEL: KeyList<MemberJoinedChannelEvent> = {
  type: true,
  user: true,
  channel: true,
  channel_type: true,
  team: true,
  event_ts: true,
};
export const APP_HOME_OPENED: KeyList<AppHomeOpenedEvent> = {
  type: true,
  user: true,
  channel: true,
  event_ts: true,
};
export const BLOCK_ACTIONS: KeyList<BlockAction<ButtonAction>> = {
  type: true,
  actions: true,
  team: true,
  user: true,
  token: true,
  response_url: true,
  trigger_id: true,
  api_app_id: true,
  container: true,
};
export const BLOCK_ACTIONS_USER: KeyList<BlockAction['user']> = { id: true, username: true };
export const BLOCK_ACTIONS_CHANNEL: KeyList<NonNullable<BlockAction['channel']>> = {
  id: true,
  name: true,
};
export const BLOCK_ACTIONS_MESSAGE: KeyList<NonNullable<BlockAction['message']>> = {
  type: true,
  ts: true,
};
export const BUTTON_ACTION: KeyList<ButtonAction> = {
  type: true,
  block_id: true,
  action_id: true,
  action_ts: true,
  text: true,
};
export const SLASH_COMMAND: KeyList<SlashCommand> = {
  token: true,
  command: true,
  text: true,
  response_url: true,
  trigger_id: true,
  user_id: true,
  user_name: true,
  team_id: true,
  team_domain: true,
  channel_id: true,
  channel_name: true,
  api_app_id: true,
};

/** The inner event's key list for each Events API type the pack sends. */
export const INNER_EVENTS: Readonly<Record<string, Readonly<Record<string, true>>>> = {
  message: MESSAGE,
  app_mention: APP_MENTION,
  reaction_added: REACTION_ADDED,
  member_joined_channel: MEMBER_JOINED_CHANNEL,
  app_home_opened: APP_HOME_OPENED,
};
