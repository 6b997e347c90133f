import { providerFailed, validation } from '@convo/kit';
import { graphPost, segment } from './meta-graph';
import {
  type Change,
  type Delivered,
  type Driver,
  type DriverSettings,
  interactiveOf,
  type Outbound,
  type Presence,
  sendInOrder,
} from './driver';
import { isObject, type Json, obj, optionalText, requiredList, requiredText, str } from '../json';
import { socialReaction } from './message-changes';

export type SocialKind = 'social_a' | 'social_b';

/** Send API calls differ only by what follows `recipient`: the message, and a tag when sent outside the window. */
type SendPart = { message: Json; messaging_type?: string; tag?: string };

/** Templates that only Messenger renders; Instagram's Send API has no such template or tag. */
const MESSENGER_ONLY = new Set(['mediaTemplate', 'receiptTemplate', 'messageTag', 'customerFeedback']);

/**
 * social_a (Instagram) and social_b (Messenger): Meta's Send API, POST {graph}/{page-id}/messages
 * with the page token, `messaging_type: RESPONSE` unless a tag says otherwise. Instagram accounts
 * linked to a page are messaged through that page, so both kinds share one request shape.
 */
export class SocialDriver implements Driver {
  constructor(
    readonly kind: SocialKind,
    private readonly settings: DriverSettings,
  ) {}

  async send(msg: Outbound): Promise<Delivered> {
    const { id, pageId, pageToken } = msg.channel;
    if (!pageId) throw providerFailed(`${this.kind} channel ${id} has no pageId`);
    if (!pageToken) throw providerFailed(`${this.kind} channel ${id} has no pageToken`);
    const parts = msg.content.interactiveType ? [await this.interactive(msg)] : plain(msg.content);
    return sendInOrder(parts, async (part) => {
      const body = await this.post(msg.channel, 'messages', { recipient: { id: msg.to }, messaging_type: 'RESPONSE', ...part });
      const sent = (body as { message_id?: unknown } | null)?.message_id;
      if (typeof sent !== 'string' || !sent) throw providerFailed(`${this.kind} answered without message_id`);
      return sent;
    });
  }

  /** A reaction (the one change the Send API takes): the sender action `react`, or `unreact` for "" (message-changes.ts). */
  async sendChange(c: Change): Promise<Delivered> {
    if (!c.channel.pageId) throw providerFailed(`${this.kind} channel ${c.channel.id} has no pageId`);
    if (!c.channel.pageToken) throw providerFailed(`${this.kind} channel ${c.channel.id} has no pageToken`);
    const body = await this.post(c.channel, 'messages', { recipient: { id: c.to }, ...socialReaction(this.kind, c) });
    // A sender action answers `{ recipient_id }` and no message id.
    return { providerMessageId: str(obj(body).message_id) };
  }

  /** A sender action, `typing_on` or `typing_off`, on the Send API (Messenger and Instagram alike). */
  async sendPresence({ channel, to, state }: Presence): Promise<boolean> {
    if (!channel.pageId) throw providerFailed(`${this.kind} channel ${channel.id} has no pageId`);
    if (!channel.pageToken) throw providerFailed(`${this.kind} channel ${channel.id} has no pageToken`);
    await this.post(channel, 'messages', { recipient: { id: to }, sender_action: state === 'typing' ? 'typing_on' : 'typing_off' });
    return true;
  }

  private post(channel: Outbound['channel'], edge: string, body: unknown): Promise<unknown> {
    return graphPost(this.settings, this.kind, `${segment(channel.pageId)}/${edge}`, channel.pageToken, body);
  }

  private async interactive(msg: Outbound): Promise<SendPart> {
    const { route, type, json } = interactiveOf(msg.content);
    if (this.kind === 'social_a' && MESSENGER_ONLY.has(type)) {
      throw validation(`${type} exists only on social_b (Messenger); social_a (Instagram) cannot send it`, [
        { field: 'interactive_type', message: 'is a social_b-only type' },
      ]);
    }
    if (route !== this.kind) {
      throw validation(`${msg.content.interactiveType} cannot be sent through a ${this.kind} channel`, [
        { field: 'interactive_type', message: `is not a ${this.kind} type` },
      ]);
    }
    switch (type) {
      case 'quickReply':
        return { message: { text: requiredText(json, 'message'), quick_replies: requiredList(json, 'quickReplies').map(quickReply) } };
      case 'buttonTemplate':
        return template({ template_type: 'button', text: requiredText(json, 'message'), buttons: buttons(json, 'buttons', true) });
      case 'genericTemplate':
        return template({ template_type: 'generic', elements: requiredList(json, 'elements').map(element) });
      case 'mediaTemplate':
        return template({ template_type: 'media', elements: [await this.mediaElement(msg, json)] });
      case 'receiptTemplate':
        return template(receipt(json));
      case 'messageTag':
        return { messaging_type: 'MESSAGE_TAG', tag: requiredText(json, 'tag'), message: { text: requiredText(json, 'message') } };
      case 'customerFeedback':
        return { messaging_type: 'MESSAGE_TAG', tag: 'CUSTOMER_FEEDBACK', ...template(customerFeedback(json)) };
      default:
        throw validation(`${this.kind} has no interactive type ${type}`, [{ field: 'interactive_type', message: 'is not a known type' }]);
    }
  }

  /**
   * A media template shows only media hosted by Meta: the file is uploaded first through the
   * Attachment Upload API (Meta fetches the URL), and the template names the attachment_id. The
   * stored copy (content.media_url) wins over the caller's mediaUrl when the platform made one.
   */
  private async mediaElement(msg: Outbound, json: Json): Promise<Json> {
    const mediaType = requiredText(json, 'mediaType');
    if (mediaType !== 'image' && mediaType !== 'video') {
      throw validation('mediaType must be image or video', [{ field: 'mediaType', message: 'must be image or video' }]);
    }
    const url = msg.content.mediaUrl || requiredText(json, 'mediaUrl');
    const uploaded = await this.post(msg.channel, 'message_attachments', {
      message: { attachment: { type: mediaType, payload: { url, is_reusable: true } } },
    });
    const attachmentId = (uploaded as { attachment_id?: unknown } | null)?.attachment_id;
    if (typeof attachmentId !== 'string' || !attachmentId)
      throw providerFailed(`${this.kind} answered the media upload without attachment_id`);
    return { media_type: mediaType, attachment_id: attachmentId, buttons: buttons(json, 'buttons', false) };
  }
}

/** Text, or one attachment by URL (the text, which has no caption slot, follows as a second message). */
function plain(content: Outbound['content']): SendPart[] {
  const text = content.text ? [{ message: { text: content.text } }] : [];
  if (!content.mediaUrl) {
    if (!text.length) throw validation('A message needs a text or a media', [{ field: 'body', message: 'is required' }]);
    return text;
  }
  const kind = content.mimeType.split('/')[0];
  const type = kind === 'image' || kind === 'video' || kind === 'audio' ? kind : 'file';
  return [{ message: { attachment: { type, payload: { url: content.mediaUrl, is_reusable: true } } } }, ...text];
}

const template = (payload: Json): SendPart => ({ message: { attachment: { type: 'template', payload } } });

function quickReply(reply: Json, i: number): Json {
  const contentType = requiredText(reply, 'content_type', `quickReplies[${i}].content_type`);
  if (contentType === 'user_phone_number') return { content_type: contentType };
  if (contentType !== 'text') {
    throw validation('content_type must be text or user_phone_number', [
      { field: `quickReplies[${i}].content_type`, message: 'must be text or user_phone_number' },
    ]);
  }
  return {
    content_type: 'text',
    title: requiredText(reply, 'title', `quickReplies[${i}].title`),
    payload: requiredText(reply, 'payload', `quickReplies[${i}].payload`),
  };
}

/** Button-template buttons: postback (its payload comes back on the postback webhook) or web_url. */
function buttons(json: Json, field: string, required: boolean, path = field): Json[] | undefined {
  if (!required && json[field] === undefined) return undefined;
  return requiredList(json, field, path).map((button, i) => {
    const at = `${path}[${i}]`;
    const title = requiredText(button, 'title', `${at}.title`);
    const type = requiredText(button, 'type', `${at}.type`);
    if (type === 'postback') return { type, title, payload: requiredText(button, 'payload', `${at}.payload`) };
    if (type === 'web_url') return { type, title, url: requiredText(button, 'url', `${at}.url`) };
    throw validation('button type must be postback or web_url', [{ field: `${at}.type`, message: 'must be postback or web_url' }]);
  });
}

function element(el: Json, i: number): Json {
  return {
    title: requiredText(el, 'title', `elements[${i}].title`),
    subtitle: optionalText(el, 'subtitle'),
    image_url: optionalText(el, 'image_url'),
    buttons: buttons(el, 'buttons', false, `elements[${i}].buttons`),
  };
}

/** Meta's receipt fields; the seed's `receipt` object uses the same names. */
const RECEIPT_FIELDS = [
  'recipient_name',
  'order_number',
  'currency',
  'payment_method',
  'merchant_name',
  'order_url',
  'timestamp',
  'address',
  'summary',
  'adjustments',
  'elements',
] as const;

function receipt(json: Json): Json {
  const r = json.receipt;
  if (!isObject(r)) throw validation('receipt is required', [{ field: 'receipt', message: 'is required' }]);
  const payload: Json = { template_type: 'receipt' };
  for (const field of RECEIPT_FIELDS) if (r[field] !== undefined) payload[field] = r[field];
  return payload;
}

/**
 * The customer_feedback template. Meta also requires `button_title` (the seed has no such
 * field): the body's own wins, else "Rate us".
 */
function customerFeedback(json: Json): Json {
  const expires = json.expires_in_days;
  return {
    template_type: 'customer_feedback',
    title: requiredText(json, 'title'),
    subtitle: optionalText(json, 'subtitle'),
    button_title: optionalText(json, 'button_title') ?? 'Rate us',
    feedback_screens: requiredList(json, 'feedback_screens').map((screen, s) => ({
      questions: requiredList(screen, 'questions', `feedback_screens[${s}].questions`).map((q, i) => {
        const at = `feedback_screens[${s}].questions[${i}]`;
        return {
          id: requiredText(q, 'id', `${at}.id`),
          type: requiredText(q, 'type', `${at}.type`),
          title: requiredText(q, 'title', `${at}.title`),
          score_label: optionalText(q, 'score_label'),
          score_option: optionalText(q, 'score_option'),
          follow_up: isObject(q.follow_up) ? q.follow_up : undefined,
        };
      }),
    })),
    business_privacy: { url: requiredText(json, 'business_privacy_url') },
    expires_in_days: typeof expires === 'number' ? expires : undefined,
  };
}
