import type { proto } from '@convo/kit';

export interface Outbound {
  channel: proto.channelEngines.ChannelTarget__Output;
  /** Digits of the contact number, or the platform user id on social channels. */
  to: string;
  content: proto.channelEngines.OutboundContent__Output;
  reference: string;
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
  /** Digits of the contact number, or the platform user id on social channels. */
  to: string;
  state: PresenceState;
  /** The provider id of the contact's latest message ('' when none): the Cloud API types in answer to one. */
  replyTo: string;
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
  /** META_GRAPH_URL: base of the Cloud API, Send API and Profile APIs (with the version). */
  metaGraphUrl: string;
  /** SMTP_URL: the relay webmail channels send through when the channel has no engineUrl. */
  smtpUrl: string;
}
