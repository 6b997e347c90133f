import { type Json, obj, str, strings } from '../json';
import { baileysSpelling, protocolChange } from './baileys-changes';
import { contactIds, type InboundEvent, isDirectChat, secondsToMs, statusEvent } from './wa-engine';

/**
 * engine_c's webhook events (uazapi, uazapiGO v2; docs/channels/engines-abc.md): the `message`
 * object of a `messages` event, and the `event` of a `messages_update`. uazapi runs on whatsmeow:
 * `messageType` names the WhatsApp message's proto field (Conversation, ExtendedTextMessage,
 * ReactionMessage, ProtocolMessage, …) and `content` is that field's own JSON as whatsmeow writes it.
 */

/** uazapi's mediaType of an inbound file → our message_type (ptt and myaudio are voice notes). */
const MEDIA_TYPES: Record<string, string> = {
  image: 'image',
  video: 'video',
  audio: 'audio',
  ptt: 'audio',
  myaudio: 'audio',
  document: 'document',
  sticker: 'sticker',
};

/** Receipt types (whatsmeow's, as uazapi names them) that are delivery states of our messages. */
const RECEIPTS: Record<string, string> = { sent: 'sent', delivered: 'delivered', read: 'read', played: 'read', servererror: 'failed' };

/**
 * A message of the conversation (the contact's, or ours with `fromMe: true`: sent from the phone,
 * WhatsApp Web or, echoed, through this platform), a reaction, an edit or a deletion for everyone;
 * undefined for groups and content we do not store (poll creations, a withdrawn vote). A choice's
 * body is uazapi's `buttonOrListid` (the tapped button's or row's id); a poll vote's is uazapi's
 * `vote`, the chosen option text(s) it decrypted. uazapi's `content.URL` is WhatsApp's encrypted
 * file, so media_url is uazapi's `fileURL` when the instance downloads media, else empty. The
 * contact: `chatid` is the number's JID when uazapi knows it, else the LID's; `sender_pn` and
 * `sender_lid` name the two (either may be empty), `sender` the one WhatsApp addressed. On our own
 * message they name the business, so the chat alone is the contact.
 */
export function uazapiMessage(m: Json): InboundEvent | undefined {
  const chat = str(m.chatid);
  if (m.isGroup === true || !isDirectChat(chat)) return undefined;
  const fromMe = m.fromMe === true;
  const envelope = {
    ...(fromMe ? contactIds(chat) : contactIds(chat, m.sender_pn, m.sender_lid, m.sender)),
    ...(fromMe && { fromMe }),
    contactName: fromMe ? '' : str(m.senderName),
    providerMessageId: str(m.messageid),
    timestampMs: Number(m.messageTimestamp) || 0,
    rawJson: JSON.stringify(m),
  };
  const type = str(m.messageType).toLowerCase();
  if (CHANGES.has(type)) return uazapiChange(type, m, { ...envelope, fromMe });
  const fields = messageFields(m, obj(m.content));
  return fields && { kind: 'message', ...envelope, replyTo: str(m.quoted), ...fields };
}

const CHANGES = new Set(['reactionmessage', 'protocolmessage', 'editedmessage']);

/**
 * ReactionMessage: uazapi's `reaction` is the id of the message reacted to (its Message schema),
 * `content` whatsmeow's ReactionMessage `{ key: { remoteJID, fromMe, ID }, text,
 * senderTimestampMS }` whose `text` is the emoji ('' removes it). ProtocolMessage: `content` is
 * `{ key, type, editedMessage }`, type 0 (REVOKE) a deletion for everyone and 14 (MESSAGE_EDIT) an
 * edit; an EditedMessage wraps it as `message.protocolMessage`. Read as Baileys reads them.
 */
function uazapiChange(type: string, m: Json, envelope: Omit<InboundEvent, 'kind'>): InboundEvent | undefined {
  const content = obj(baileysSpelling(m.content));
  if (type === 'reactionmessage') {
    const target = str(m.reaction) || str(obj(content.key).id);
    const emoji = typeof content.text === 'string' ? content.text : str(m.text);
    return target ? { kind: 'reaction', ...envelope, targetId: target, body: emoji } : undefined;
  }
  const protocol = obj(content.protocolMessage ?? obj(content.message).protocolMessage ?? content);
  return protocolChange(protocol, envelope);
}

function messageFields(
  m: Json,
  content: Json,
): Pick<InboundEvent, 'messageType' | 'body' | 'mediaUrl' | 'mimeType' | 'fileName'> | undefined {
  const messageType = str(m.messageType);
  if (messageType === 'PollUpdateMessage') return str(m.vote) ? { messageType: 'poll_vote', body: str(m.vote) } : undefined;
  if (str(m.buttonOrListid)) {
    const button = messageType === 'ButtonsResponseMessage' || messageType === 'TemplateButtonReplyMessage';
    return { messageType: button ? 'button' : 'interactive', body: str(m.buttonOrListid) };
  }
  const media = MEDIA_TYPES[str(m.mediaType)];
  if (media)
    return {
      messageType: media,
      body: str(m.text),
      mediaUrl: str(m.fileURL),
      mimeType: str(content.mimetype),
      fileName: str(content.fileName),
    };
  if (messageType === 'LocationMessage' && typeof content.degreesLatitude === 'number') {
    return { messageType: 'location', body: `${content.degreesLatitude},${content.degreesLongitude}` };
  }
  if (messageType === 'Conversation' || messageType === 'ExtendedTextMessage') return { messageType: 'text', body: str(m.text) };
  return undefined;
}

/**
 * One status per message id of a receipt for our messages. IsFromMe (a boolean, or "True" as a
 * string) marks our own device's receipts of the contact's messages, which are not ours to report.
 */
export function uazapiReceipts(event: Json, state: string): InboundEvent[] {
  if (String(event.IsFromMe).toLowerCase() === 'true') return [];
  const status = RECEIPTS[(str(event.Type) || state).toLowerCase()];
  const ids = strings(event.MessageIDs);
  return status ? ids.map((id) => statusEvent(id, status, secondsToMs(event.Timestamp))) : [];
}
