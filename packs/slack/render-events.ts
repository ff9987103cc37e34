// Inner events for the Events API types beyond messages (envelope.ts wraps them): a reaction
// taken back, a channel made, someone leaving a channel, a person joining the workspace or
// changing their profile, and an app's uninstall with the token revocation that precedes it.
// Each is rendered from the write's subject — for a removal, from what the subject was.
import type { JsonObject, RenderContext } from '../../src/index.js';
import { channelMemberKind, reactionKind } from './activity.js';
import { appKind } from './apps.js';
import { messageTs } from './ids.js';
import { channelKind, userKind, type SlackChannel, type SlackUser } from './workspace.js';

export interface Inner {
  readonly event: JsonObject;
  readonly team: string;
  readonly channel: string;
}

/** A person's user object as team_join and users.info carry it. */
export function renderUser(user: SlackUser, updated: number): JsonObject {
  const [first, ...rest] = user.real_name.split(' ');
  return {
    id: user.id,
    team_id: user.team_id,
    name: user.name,
    deleted: user.deleted,
    color: '9f69e7',
    real_name: user.real_name,
    tz: 'Europe/London',
    tz_label: 'Greenwich Mean Time',
    tz_offset: 0,
    profile: {
      title: '',
      phone: '',
      skype: '',
      real_name: user.real_name,
      real_name_normalized: user.real_name,
      display_name: user.name,
      display_name_normalized: user.name,
      fields: null,
      status_text: '',
      status_text_canonical: '',
      status_emoji: '',
      status_emoji_display_info: [],
      status_expiration: 0,
      avatar_hash: 'g0123456789a',
      first_name: first ?? '',
      last_name: rest.join(' '),
      image_24: `https://secure.gravatar.com/avatar/${user.id}.jpg?s=24`,
      image_32: `https://secure.gravatar.com/avatar/${user.id}.jpg?s=32`,
      image_48: `https://secure.gravatar.com/avatar/${user.id}.jpg?s=48`,
      image_72: `https://secure.gravatar.com/avatar/${user.id}.jpg?s=72`,
      image_192: `https://secure.gravatar.com/avatar/${user.id}.jpg?s=192`,
      image_512: `https://secure.gravatar.com/avatar/${user.id}.jpg?s=512`,
      team: user.team_id,
      ...(user.email === undefined ? {} : { email: user.email }),
    },
    is_admin: false,
    is_owner: false,
    is_primary_owner: false,
    is_restricted: false,
    is_ultra_restricted: false,
    is_bot: user.is_bot,
    is_app_user: false,
    updated,
    is_email_confirmed: true,
    who_can_share_contact_card: 'EVERYONE',
    locale: 'en-US',
  };
}

/** A public channel as channel_created carries it. */
export function renderChannelCreated(channel: SlackChannel): JsonObject {
  return {
    id: channel.id,
    is_channel: true,
    name: channel.name,
    name_normalized: channel.name,
    created: channel.created,
    creator: channel.creator,
    is_shared: false,
    is_org_shared: false,
    context_team_id: channel.team_id,
    is_archived: channel.is_archived,
    is_frozen: false,
    is_general: channel.name === 'general',
    is_group: false,
    is_private: false,
    is_ext_shared: false,
    is_im: false,
    is_mpim: false,
    is_pending_ext_shared: false,
  };
}

export function moreInnerEvents(ctx: RenderContext): Inner | undefined {
  const now = messageTs(ctx.now, 0);
  switch (ctx.eventType) {
    case 'reaction_removed': {
      const r = ctx.previous === undefined ? undefined : reactionKind.from(ctx.previous);
      if (r === undefined) return undefined;
      return {
        event: {
          type: 'reaction_removed',
          user: r.user,
          reaction: r.reaction,
          item: r.item,
          item_user: r.item_user,
          event_ts: now,
        },
        team: r.team,
        channel: r.item.channel,
      };
    }
    case 'channel_created': {
      const c = channelKind.from(ctx.subject!.fields);
      return {
        event: { type: 'channel_created', channel: renderChannelCreated(c), event_ts: now },
        team: c.team_id,
        channel: c.id,
      };
    }
    case 'member_left_channel': {
      const m = channelMemberKind.from(ctx.subject!.fields);
      return {
        event: {
          type: 'member_left_channel',
          user: m.user,
          channel: m.channel,
          channel_type: 'C',
          team: m.team,
          event_ts: m.event_ts,
        },
        team: m.team,
        channel: m.channel,
      };
    }
    case 'user_change':
    case 'team_join': {
      const u = userKind.from(ctx.subject!.fields);
      const seconds = Math.floor(ctx.now / 1000);
      return {
        event: {
          type: ctx.eventType,
          user: renderUser(u, seconds),
          cache_ts: seconds,
          event_ts: now,
        },
        team: u.team_id,
        channel: '',
      };
    }
    case 'tokens_revoked':
    case 'app_uninstalled': {
      const app = appKind.from(ctx.subject!.fields);
      const event: JsonObject =
        ctx.eventType === 'tokens_revoked'
          ? { type: 'tokens_revoked', tokens: { oauth: [], bot: [app.bot_user_id] }, event_ts: now }
          : { type: 'app_uninstalled', event_ts: now };
      return { event, team: app.team_id, channel: '' };
    }
    default:
      return undefined;
  }
}
