import { DomainError, type MessageChange, providerFailed, validation, type proto } from '@convo/kit';
import { isObject, type Json } from '../json';

export interface Outbound {
  channel: proto.channelEngines.ChannelTarget__Output;
  /**
   * The contact: a number's digits, or where the kind has one, a business-scoped user id (waba), a
   * LID's JID `<digits>@lid` (unofficial engines), the platform user id (social), an address (mail).
   */
  to: string;
  content: proto.channelEngines.OutboundContent__Output;
  reference: string;
  /**
   * waba templates on a channel with the Marketing Messages API set: the template's category in
   * the channel's catalog (MARKETING, UTILITY, AUTHENTICATION), which picks Meta's endpoint.
   */
  templateCategory?: string;
}

export interface Delivered {
  providerMessageId: string;
  /** "queued" when the message waits for its reader (web chat); absent means "sent". */
  status?: 'sent' | 'queued';
}

/** What sendPresence shows the contact: that we are typing, or that we stopped. */
export type PresenceState = 'typing' | 'paused';

export interface Presence {
  channel: Outbound['channel'];
  /** The contact, as in Outbound. */
  to: string;
  state: PresenceState;
  /** The provider id of the contact's latest message ('' when none): the Cloud API types in answer to one. */
  replyTo: string;
}

/** A change to a message sent before (CONVENTIONS.md "The whole conversation"), not a message. */
export interface Change {
  channel: Outbound['channel'];
  /** The contact (the chat the message is in), as in Outbound. */
  to: string;
  change: MessageChange;
  /** The provider's id of the message changed, and whether it is the business's own (engines key a message by chat, id and fromMe). */
  targetId: string;
  targetFromMe: boolean;
  /** react: the emoji ("" removes the reaction). */
  emoji: string;
  /** edit: the new text. */
  text: string;
  /** Our id of the queued change. */
  reference: string;
}

export interface NumberCheck {
  exists: boolean;
  networkId: string;
}

/** One driver per channel kind; each speaks its provider's own HTTP contract. */
export interface Driver {
  readonly kind: string;
  send(message: Outbound): Promise<Delivered>;
  /**
   * Shows the contact that we are typing, or that we stopped: true once the provider took it, false
   * where this state means nothing to the provider (nothing is sent). Absent where the kind has no
   * such notion at all. Not a message: nothing is recorded or retried.
   */
  sendPresence?(presence: Presence): Promise<boolean>;
  /**
   * Sends a reaction, an edit or a deletion for everyone of a message sent before, where the kind's
   * provider takes it (kit's MESSAGE_CHANGES lists which); the answer's id is the provider's id of
   * the change where it gives one ('' otherwise). Absent where the provider takes none.
   */
  sendChange?(change: Change): Promise<Delivered>;
  /** Whether a number has an account on the network; absent where the provider cannot tell. */
  checkNumber?(channel: Outbound['channel'], number: string): Promise<NumberCheck>;
  /**
   * Engine-style kinds: turns the body their server posted to `/webhooks/engine/{channelId}` into
   * neutral events (the caller fills in channel_id and channel_type). An event kind the driver does
   * not use yields no event, never an error: engines send many events we do not need. Meta kinds
   * (waba, social_a, social_b) are parsed from Meta's shared envelope instead, not here.
   */
  parseInbound?(channel: Outbound['channel'], body: unknown): proto.channelEngines.InboundEvent[];
  /** Releases what the driver keeps open (pooled SMTP connections) when the service stops. */
  close?(): void | Promise<void>;
}

export interface DriverSettings {
  timeoutMs: number;
  /** ENGINE_URL_<KIND> then ENGINE_URL, used when a channel has no engineUrl of its own. */
  engineUrl(kind: string): string;
  /** ENGINE_TOKEN_<KIND> then ENGINE_TOKEN ('' when neither is set), used when a channel has no engineToken of its own. */
  engineToken(kind: string): string;
  /** META_GRAPH_URL: base of the Cloud API, Send API and Profile APIs (with the version). */
  metaGraphUrl: string;
  /** SMTP_URL: the relay webmail channels send through when the channel has no engineUrl. */
  smtpUrl: string;
}

/**
 * One message as one or more Send API calls: a text that cannot ride as a caption (Messenger
 * attachments, WhatsApp audio and stickers) follows its media as a second message. The answer is
 * the first message's id; a refused follow-up is still a failure, and says the media arrived.
 */
export async function sendInOrder<T>(requests: T[], post: (request: T) => Promise<string>): Promise<Delivered> {
  const first = await post(requests[0]);
  for (const request of requests.slice(1)) {
    try {
      await post(request);
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
      // Not retried: a retry would deliver the media a second time.
      const details = err.details?.map((d) => ({ ...(d as object), transient: undefined, retryAfter: undefined }));
      throw providerFailed(`${err.message} (the media before it was delivered as ${first})`, details);
    }
  }
  return { providerMessageId: first };
}

/** Splits `interactive_type` ("<route>/<type>") and parses `interactive_json`. */
export function interactiveOf(content: Outbound['content']): { route: string; type: string; json: Json } {
  const [route, type = ''] = content.interactiveType.split('/', 2);
  let json: unknown;
  try {
    json = JSON.parse(content.interactiveJson || '{}');
  } catch {
    throw validation(`${content.interactiveType}: interactive_json is not JSON`, [{ field: 'interactive_json', message: 'must be JSON' }]);
  }
  if (!isObject(json))
    throw validation(`${content.interactiveType}: interactive_json must be an object`, [
      { field: 'interactive_json', message: 'must be an object' },
    ]);
  return { route, type, json };
}
