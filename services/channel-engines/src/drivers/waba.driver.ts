import { isBsuid, isLid, providerFailed, validation } from '@convo/kit';
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
import { type Json, optionalText, requiredList, requiredText } from '../json';

/** One Cloud API message: its `type` and the object named after it (`{ type: "text", text: {...} }`). */
type WabaMessage = { type: string } & Json;

/**
 * waba: the WhatsApp Business Cloud API. POST {graph}/{phone-number-id}/messages with the
 * business token; media travel by `link` (the public link of the stored file), so nothing is
 * uploaded first. docs/channels/providers-meta.md lists what each content becomes, and how a
 * contact known only by its business-scoped user id is reached.
 */
export class WabaDriver implements Driver {
  readonly kind = 'waba';

  constructor(private readonly settings: DriverSettings) {}

  /**
   * The Cloud API's typing indicator: the contact's latest message marked read, with
   * `typing_indicator`; shown until we answer or for 25 s. It answers a message, so without one,
   * and for paused (which the Cloud API has no call for), nothing is sent.
   */
  async sendPresence({ channel, to, state, replyTo }: Presence): Promise<boolean> {
    // The indicator names the contact's message, not the contact; a LID is refused all the same.
    wabaRecipient(to);
    if (state !== 'typing' || !replyTo) return false;
    const { tokenApi, bmToken } = credentials(channel);
    await graphPost(this.settings, this.kind, `${segment(tokenApi)}/messages`, bmToken, {
      messaging_product: 'whatsapp',
      status: 'read',
      message_id: replyTo,
      typing_indicator: { type: 'text' },
    });
    return true;
  }

  /**
   * A reaction, the one change the Cloud API takes: a message `{ type: "reaction", reaction: {
   * message_id, emoji } }`, an empty emoji removing it (Meta's "Reaction messages"). It has an id of its own.
   */
  async sendChange(c: Change): Promise<Delivered> {
    const reaction: WabaMessage = { type: 'reaction', reaction: { message_id: c.targetId, emoji: c.emoji } };
    return { providerMessageId: await this.post(c.channel, wabaRecipient(c.to), reaction) };
  }

  /**
   * A template of category MARKETING on a channel with `marketingMessagesApi` goes to Meta's
   * Marketing Messages API, `POST /{phone-number-id}/marketing_messages`: the same body and
   * answer as /messages (Meta's MarketingMessageRequestPayload), delivered with Meta's marketing
   * optimisations. Every other message goes to /messages.
   */
  async send(msg: Outbound): Promise<Delivered> {
    credentials(msg.channel);
    const recipient = wabaRecipient(msg.to);
    const edge = viaMarketingMessages(msg) ? 'marketing_messages' : 'messages';
    return sendInOrder(messagesOf(msg.content), (message) => this.post(msg.channel, recipient, message, edge));
  }

  /** One Cloud API message on `edge` (/messages unless said); the answer is its id (`messages[0].id`). */
  private async post(
    channel: Outbound['channel'],
    recipient: ReturnType<typeof wabaRecipient>,
    message: WabaMessage,
    edge = 'messages',
  ): Promise<string> {
    const { tokenApi, bmToken } = credentials(channel);
    const body = await graphPost(this.settings, this.kind, `${segment(tokenApi)}/${edge}`, bmToken, {
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      ...recipient,
      ...message,
    });
    const sent = (body as { messages?: { id?: unknown }[] } | null)?.messages?.[0]?.id;
    if (typeof sent !== 'string' || !sent) throw providerFailed('waba answered without messages[0].id');
    return sent;
  }
}

/** A MARKETING template on a channel that opted into the Marketing Messages API. */
function viaMarketingMessages({ channel, content, templateCategory }: Outbound): boolean {
  return channel.marketingMessagesApi && content.interactiveType === 'waba/template' && templateCategory?.toUpperCase() === 'MARKETING';
}

/**
 * Who a message goes to: a phone number in `to`, or a business-scoped user id (a BSUID, or a
 * parent BSUID) in `recipient` with no `to` at all: Meta answers 200 to a BSUID put in `to` and
 * never delivers it. A LID belongs to the unofficial engines: refused before any call.
 */
function wabaRecipient(to: string): { to: string } | { recipient: string } {
  if (isBsuid(to)) return { recipient: to };
  if (isLid(to)) {
    throw validation(`waba channels cannot reach a LID (${to}): it belongs to the unofficial engines`, [
      { field: 'to', message: 'must be a phone number or a business-scoped user id on waba channels' },
    ]);
  }
  return { to };
}

function credentials(channel: Outbound['channel']): { tokenApi: string; bmToken: string } {
  const { id, tokenApi, bmToken } = channel;
  if (!tokenApi) throw providerFailed(`waba channel ${id} has no tokenAPI (the WhatsApp phone number id)`);
  if (!bmToken) throw providerFailed(`waba channel ${id} has no bmToken (the business token)`);
  return { tokenApi, bmToken };
}

function messagesOf(content: Outbound['content']): WabaMessage[] {
  if (content.interactiveType) return [interactive(content)];
  const text = content.text;
  if (!content.mediaUrl) {
    if (!text) throw validation('A message needs a text or a media', [{ field: 'body', message: 'is required' }]);
    return [{ type: 'text', text: { body: text } }];
  }
  const link = content.mediaUrl;
  const caption = text || undefined;
  const kind = content.mimeType.split('/')[0];
  // Audio and stickers take no caption: the text follows as its own message.
  const followUp: WabaMessage[] = text ? [{ type: 'text', text: { body: text } }] : [];
  if (content.mimeType === 'image/webp') return [{ type: 'sticker', sticker: { link } }, ...followUp];
  if (kind === 'image' || kind === 'video') return [{ type: kind, [kind]: { link, caption } }];
  // voice: a voice note (the /voice route), which Meta wants as Ogg/Opus.
  if (kind === 'audio') return [{ type: 'audio', audio: { link, ...(content.voice && { voice: true }) } }, ...followUp];
  return [{ type: 'document', document: { link, caption, filename: content.fileName || undefined } }];
}

function interactive(content: Outbound['content']): WabaMessage {
  const { route, type, json } = interactiveOf(content);
  if (route !== 'waba')
    throw validation(`${content.interactiveType} cannot be sent through a waba channel`, [
      { field: 'interactive_type', message: `is not a waba type` },
    ]);
  if (type === 'button') return { type: 'interactive', interactive: replyButtons(json) };
  if (type === 'list') return { type: 'interactive', interactive: list(json) };
  // A template checked against the channel's catalog at acceptance: the Cloud API's own object.
  if (type === 'template') return { type: 'template', template: json };
  throw validation(`waba has no interactive type ${type}`, [
    { field: 'interactive_type', message: 'must be waba/button, waba/list or waba/template' },
  ]);
}

/**
 * sendButtonWABA: each button's title is also its reply id, so the contact's tap comes back (as
 * button_reply.id) with the very text the integrator chose, and needs no table of our own ids.
 * Meta wants titles unique within a message, which makes the ids unique too.
 */
function replyButtons(json: Json): Json {
  const titles = [requiredText(json, 'button1'), requiredText(json, 'button2'), optionalText(json, 'button3')].filter(
    (t): t is string => !!t,
  );
  return {
    type: 'button',
    body: { text: requiredText(json, 'message') },
    action: { buttons: titles.map((title) => ({ type: 'reply', reply: { id: title, title } })) },
  };
}

/** sendListWABA: the seed's fields are the Cloud API's, under their own names; a list header is text only. */
function list(json: Json): Json {
  const header = optionalText(json, 'header');
  const footer = optionalText(json, 'footer');
  return {
    type: 'list',
    header: header ? { type: 'text', text: header } : undefined,
    body: { text: requiredText(json, 'body') },
    footer: footer ? { text: footer } : undefined,
    action: {
      button: requiredText(json, 'button_text'),
      sections: requiredList(json, 'sections').map((section, s) => ({
        title: optionalText(section, 'title'),
        rows: requiredList(section, 'rows', `sections[${s}].rows`).map((row, r) => ({
          id: requiredText(row, 'id', `sections[${s}].rows[${r}].id`),
          title: requiredText(row, 'title', `sections[${s}].rows[${r}].title`),
          description: optionalText(row, 'description'),
        })),
      })),
    },
  };
}
