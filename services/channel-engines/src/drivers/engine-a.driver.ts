import { providerFailed } from '@convo/kit';
import { baileysMessage, baileysStatus } from './baileys-inbound';
import { requestJson } from './http';
import { nativeFlowMessage } from './native-flow';
import { isObject, obj, str } from '../json';
import {
  type Change,
  type Delivered,
  type Driver,
  type DriverSettings,
  type NumberCheck,
  type Outbound,
  type Presence,
  sendInOrder,
} from './driver';
import { baileysChangeRequest, changeId } from './message-changes';
import {
  chatJid,
  connectionEvent,
  engineBaseUrl,
  type InboundEvent,
  interactiveFor,
  mediaKindOf,
  personJid,
  requireContent,
  statusEvent,
  tokenHeader,
  waMessageId,
  webhookBody,
} from './wa-engine';

/** The `content` argument of Baileys' sendMessage. */
type Content = Record<string, unknown>;

/**
 * engine_a: a Baileys-based engine server. Its HTTP contract (docs/channels/engines-abc.md) mirrors
 * Baileys' `sendMessage(jid, content, options)`: POST {base}/messages with
 * `{ jid, content, options: { messageId } }`, answered with the WAMessage whose `key.id` is the id.
 * Interactive sends are native-flow `interactiveMessage` contents; inbound events are Baileys'
 * own (`messages.upsert`, `messages.update`, `connection.update`) as `{ event, data }`.
 */
export class EngineADriver implements Driver {
  readonly kind = 'engine_a';

  constructor(private readonly settings: DriverSettings) {}

  async send(msg: Outbound): Promise<Delivered> {
    // An audio takes no caption: its text follows as a second message, with an id of its own.
    return sendInOrder(contentsOf(this.kind, msg), (content) =>
      this.sendMessage(msg, content.content, content.second && msg.reference ? `${msg.reference}-text` : msg.reference),
    );
  }

  /** A reaction, an edit or a deletion for everyone: Baileys' own change contents on POST {base}/messages (message-changes.ts). */
  async sendChange(c: Change): Promise<Delivered> {
    const { path, body } = baileysChangeRequest(this.kind, c);
    return { providerMessageId: changeId(await this.post(c.channel, path, body)) };
  }

  /** Baileys' `sendPresenceUpdate(presence, jid)`: POST {base}/presence `{ jid, presence }`, composing or paused. */
  async sendPresence({ channel, to, state }: Presence): Promise<boolean> {
    await this.post(channel, '/presence', { jid: chatJid(this.kind, to), presence: state === 'typing' ? 'composing' : 'paused' });
    return true;
  }

  /** Baileys' `onWhatsApp(...jids)`: POST {base}/contacts/check → `[{ jid, exists }]`. */
  async checkNumber(channel: Outbound['channel'], number: string): Promise<NumberCheck> {
    const body = await this.post(channel, '/contacts/check', { jids: [personJid(number)] });
    const first = Array.isArray(body) ? (body[0] as { exists?: unknown; jid?: unknown } | undefined) : undefined;
    if (!first || typeof first.exists !== 'boolean') throw providerFailed('engine_a answered the number check without exists');
    return { exists: first.exists, networkId: typeof first.jid === 'string' ? first.jid : '' };
  }

  /**
   * `{ event, data }` with Baileys' event payload as emitted: messages.upsert `{ messages, type }`,
   * messages.update `[{ key, update: { status } }]`, connection.update `{ connection, lastDisconnect }`.
   */
  parseInbound(_channel: Outbound['channel'], body: unknown): InboundEvent[] {
    const { event, data } = webhookBody(this.kind, body);
    if (event === 'messages.upsert') {
      const messages = obj(data).messages;
      return (Array.isArray(messages) ? messages : []).filter(isObject).flatMap((m) => baileysMessage(m) ?? []);
    }
    if (event === 'messages.update') {
      // Receipts of our own messages only: an update of the contact's message is our device reading it.
      return (Array.isArray(data) ? data : []).filter(isObject).flatMap((u) => {
        const key = obj(u.key);
        const status = baileysStatus(obj(u.update).status);
        return key.fromMe === true && status && str(key.id) ? [statusEvent(str(key.id), status)] : [];
      });
    }
    if (event === 'connection.update') {
      const { connection, lastDisconnect } = obj(data);
      if (connection === 'open') return [connectionEvent('CONNECTED')];
      if (connection === 'close') return [connectionEvent('DISCONNECTED', str(obj(obj(lastDisconnect).error).message))];
    }
    return [];
  }

  private async sendMessage(msg: Outbound, content: Content, messageId: string): Promise<string> {
    return waMessageId(
      this.kind,
      await this.post(msg.channel, '/messages', { jid: chatJid(this.kind, msg.to), content, options: { messageId } }),
    );
  }

  private async post(channel: Outbound['channel'], path: string, payload: unknown): Promise<unknown> {
    const { body } = await requestJson(`${engineBaseUrl(this.settings, this.kind, channel)}${path}`, {
      body: payload,
      headers: tokenHeader(this.settings, this.kind, channel, 'authorization', { scheme: 'Bearer' }),
      timeoutMs: this.settings.timeoutMs,
      provider: this.kind,
    });
    return body;
  }
}

/** The Baileys contents of one send, in order; `second` marks the text that follows an audio. */
function contentsOf(kind: string, { content, reference }: Outbound): { content: Content; second?: boolean }[] {
  if (content.interactiveType) {
    const { type, json } = interactiveFor(kind, content);
    return [{ content: { interactiveMessage: nativeFlowMessage(kind, type, json, reference) } }];
  }
  requireContent(content);
  if (!content.mediaUrl) return [{ content: { text: content.text } }];
  const media = mediaKindOf(content.mimeType);
  const url = { url: content.mediaUrl };
  const caption = content.text || undefined;
  if (media === 'audio') {
    // ptt: a voice note (the /voice route), played in line with the sender's picture.
    const audio = { content: { audio: url, mimetype: content.mimeType, ...(content.voice && { ptt: true }) } };
    return caption ? [audio, { content: { text: caption }, second: true }] : [audio];
  }
  if (media === 'document')
    return [{ content: { document: url, mimetype: content.mimeType, fileName: content.fileName || undefined, caption } }];
  return [{ content: { [media]: url, caption, mimetype: content.mimeType } }];
}
