// Slack's own types as a reference, checked by the compiler (`npm run typecheck`): each list
// below must name exactly the required keys of the Slack type it is declared with — a key Slack
// adds or drops breaks the build — and slack-types.test.ts checks every rendered payload holds
// them at run time. Types come from @slack/types (events) and @slack/bolt (envelopes, actions,
// commands).
import type {
  BlockAction,
  ButtonAction,
  EnvelopedEvent,
  GlobalShortcut,
  MessageShortcut,
  SlashCommand,
  ViewOutput,
  ViewSubmitAction,
} from '@slack/bolt';
import type {
  AppHomeOpenedEvent,
  AppMentionEvent,
  AppUninstalledEvent,
  ChannelCreatedEvent,
  GenericMessageEvent,
  MemberJoinedChannelEvent,
  MemberLeftChannelEvent,
  MessageChangedEvent,
  MessageDeletedEvent,
  ReactionAddedEvent,
  ReactionRemovedEvent,
  TeamJoinEvent,
  TokensRevokedEvent,
  UserChangeEvent,
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

export const REACTION_REMOVED: KeyList<ReactionRemovedEvent> = {
  type: true,
  user: true,
  reaction: true,
  item_user: true,
  item: true,
  event_ts: true,
};
export const CHANNEL_CREATED: KeyList<ChannelCreatedEvent> = {
  type: true,
  event_ts: true,
  channel: true,
};
export const CHANNEL_CREATED_CHANNEL: KeyList<ChannelCreatedEvent['channel']> = {
  id: true,
  is_channel: true,
  name: true,
  name_normalized: true,
  created: true,
  creator: true,
  is_shared: true,
  is_org_shared: true,
  context_team_id: true,
  is_archived: true,
  is_frozen: true,
  is_general: true,
  is_group: true,
  is_private: true,
  is_ext_shared: true,
  is_im: true,
  is_mpim: true,
  is_pending_ext_shared: true,
};
export const TEAM_JOIN: KeyList<TeamJoinEvent> = {
  type: true,
  user: true,
  cache_ts: true,
  event_ts: true,
};
export const TEAM_JOIN_USER: KeyList<TeamJoinEvent['user']> = {
  id: true,
  team_id: true,
  name: true,
  deleted: true,
  color: true,
  real_name: true,
  tz: true,
  tz_label: true,
  tz_offset: true,
  profile: true,
  is_admin: true,
  is_owner: true,
  is_primary_owner: true,
  is_restricted: true,
  is_ultra_restricted: true,
  is_bot: true,
  updated: true,
  is_email_confirmed: true,
  is_app_user: true,
  locale: true,
  who_can_share_contact_card: true,
};
export const APP_UNINSTALLED: KeyList<AppUninstalledEvent> = { type: true };
export const TOKENS_REVOKED: KeyList<TokensRevokedEvent> = { type: true, tokens: true };
export const VIEW_SUBMISSION: KeyList<ViewSubmitAction> = {
  type: true,
  team: true,
  user: true,
  view: true,
  api_app_id: true,
  token: true,
  trigger_id: true,
};
export const VIEW_OUTPUT: KeyList<ViewOutput> = {
  id: true,
  callback_id: true,
  team_id: true,
  bot_id: true,
  title: true,
  type: true,
  blocks: true,
  state: true,
  hash: true,
  private_metadata: true,
  clear_on_close: true,
  notify_on_close: true,
  app_id: true,
  close: true,
  submit: true,
  root_view_id: true,
  previous_view_id: true,
};
export const GLOBAL_SHORTCUT: KeyList<GlobalShortcut> = {
  type: true,
  callback_id: true,
  trigger_id: true,
  user: true,
  team: true,
  token: true,
  action_ts: true,
};
export const MESSAGE_SHORTCUT: KeyList<MessageShortcut> = {
  type: true,
  callback_id: true,
  trigger_id: true,
  message_ts: true,
  response_url: true,
  message: true,
  user: true,
  channel: true,
  team: true,
  token: true,
  action_ts: true,
};

/** The inner event's key list for each Events API type the pack sends. */
export const MEMBER_LEFT_CHANNEL: KeyList<MemberLeftChannelEvent> = {
  type: true,
  user: true,
  channel: true,
  channel_type: true,
  team: true,
  event_ts: true,
};
export const USER_CHANGE: KeyList<UserChangeEvent> = {
  type: true,
  user: true,
  cache_ts: true,
  event_ts: true,
};
export const USER_CHANGE_USER: KeyList<UserChangeEvent['user']> = {
  id: true,
  team_id: true,
  name: true,
  deleted: true,
  color: true,
  real_name: true,
  tz: true,
  tz_label: true,
  tz_offset: true,
  profile: true,
  is_admin: true,
  is_owner: true,
  is_primary_owner: true,
  is_restricted: true,
  is_ultra_restricted: true,
  is_bot: true,
  updated: true,
  is_email_confirmed: true,
  is_app_user: true,
  locale: true,
  who_can_share_contact_card: true,
};
export const MESSAGE_CHANGED: KeyList<MessageChangedEvent> = {
  type: true,
  subtype: true,
  event_ts: true,
  hidden: true,
  channel: true,
  channel_type: true,
  ts: true,
  message: true,
  previous_message: true,
};
export const MESSAGE_DELETED: KeyList<MessageDeletedEvent> = {
  type: true,
  subtype: true,
  event_ts: true,
  hidden: true,
  channel: true,
  channel_type: true,
  ts: true,
  deleted_ts: true,
  previous_message: true,
};
export const INNER_EVENTS: Readonly<Record<string, Readonly<Record<string, true>>>> = {
  message: MESSAGE,
  app_mention: APP_MENTION,
  reaction_added: REACTION_ADDED,
  member_joined_channel: MEMBER_JOINED_CHANNEL,
  app_home_opened: APP_HOME_OPENED,
  reaction_removed: REACTION_REMOVED,
  channel_created: CHANNEL_CREATED,
  team_join: TEAM_JOIN,
  app_uninstalled: APP_UNINSTALLED,
  tokens_revoked: TOKENS_REVOKED,
  member_left_channel: MEMBER_LEFT_CHANNEL,
  user_change: USER_CHANGE,
};
