import { isObject, type Json, obj, str } from '../json';
import { baileysChange } from './baileys-changes';
import { contactIds, type InboundEvent, isDirectChat, secondsToMs } from './wa-engine';

/**
 * Baileys' WAMessage (`{ key, pushName, messageTimestamp, message }`) as a neutral inbound
 * event. engine_a posts Baileys' own events and Evolution API (engine_b) posts the same
 * WAMessage in its `data`, so both read messages here. docs/channels/engines-abc.md lists every content.
 */

/** Containers WhatsApp wraps a message in; the content is inside their `message`. */
const WRAPPERS = ['ephemeralMessage', 'viewOnceMessage', 'viewOnceMessageV2', 'viewOnceMessageV2Extension', 'documentWithCaptionMessage'];

const MEDIA: Record<string, string> = {
  imageMessage: 'image',
  videoMessage: 'video',
  audioMessage: 'audio',
  documentMessage: 'document',
  stickerMessage: 'sticker',
};

/** What a content says, before the envelope (sender, ids, time) is added. */
type Content = Pick<InboundEvent, 'messageType' | 'body' | 'mimeType' | 'fileName'> & { replyTo?: string; node?: Json };

/**
 * The message of a one-to-one chat, or undefined when it is none: a group, status or channel post,
 * or content we do not store (other protocol messages, a vote withdrawn). The business's own
 * (`key.fromMe`: sent from the phone, WhatsApp Web, or by us through the engine) has `fromMe`; a
 * reaction, an edit or a deletion for everyone is its own event (baileys-changes.ts). `mediaUrl` is the downloadable copy the engine adds next to the content (Evolution's
 * S3/MinIO link, engine_a's own); WhatsApp's own media URLs are encrypted and of no use here.
 *
 * The contact: Baileys 7 (and Evolution from 2.3.5, which posts the key as Baileys made it) names a
 * LID-addressed chat `key.remoteJid: "…@lid"` with the number, when known, in `key.remoteJidAlt`
 * (`addressingMode: "lid"`), and a number-addressed one the other way round (`addressingMode:
 * "pn"`, the LID in `remoteJidAlt`). Older ones put the number in `key.senderPn` and the LID in
 * `key.senderLid`; Evolution 2.3.1–2.3.4 rewrote `remoteJid` to the number and kept the LID in
 * `key.previousRemoteJid`. Every one of them is read by its form.
 */
export function baileysMessage(msg: Json): InboundEvent | undefined {
  const key = obj(msg.key);
  const chat = str(key.remoteJid);
  if (!isDirectChat(chat)) return undefined;
  const message = obj(msg.message);
  const inner = unwrap(message);
  const change = baileysChange(msg, inner, chat);
  if (change) return change;
  const content = contentOf(inner);
  if (!content) return undefined;
  const { node, replyTo, ...fields } = content;
  const fromMe = key.fromMe === true;
  return {
    kind: 'message',
    ...contactIds(chat, key.remoteJidAlt, key.senderPn, key.senderLid, key.previousRemoteJid),
    // pushName is the sender's: on our own message it is the business's name, not the contact's.
    contactName: fromMe ? '' : str(msg.pushName),
    ...(fromMe && { fromMe }),
    providerMessageId: str(key.id),
    ...fields,
    mediaUrl: str(message.mediaUrl),
    replyTo: replyTo ?? (str(obj(node?.contextInfo).stanzaId) || str(obj(msg.contextInfo).stanzaId)),
    timestampMs: secondsToMs(msg.messageTimestamp),
    rawJson: JSON.stringify(msg),
  };
}

function unwrap(message: Json): Json {
  let current = message;
  for (let depth = 0; depth < 4; depth++) {
    const wrapper = WRAPPERS.find((w) => isObject(obj(current[w]).message));
    if (!wrapper) break;
    current = obj(obj(current[wrapper]).message);
  }
  return current;
}

function contentOf(m: Json): Content | undefined {
  if (typeof m.conversation === 'string' && m.conversation) return { messageType: 'text', body: m.conversation };
  if (isObject(m.extendedTextMessage)) return { messageType: 'text', body: str(m.extendedTextMessage.text), node: m.extendedTextMessage };

  const mediaKey = Object.keys(MEDIA).find((k) => isObject(m[k]));
  if (mediaKey) {
    const node = obj(m[mediaKey]);
    return { messageType: MEDIA[mediaKey], body: str(node.caption), mimeType: str(node.mimetype), fileName: str(node.fileName), node };
  }

  const location = obj(m.locationMessage ?? m.liveLocationMessage);
  if (typeof location.degreesLatitude === 'number' && typeof location.degreesLongitude === 'number') {
    return { messageType: 'location', body: `${location.degreesLatitude},${location.degreesLongitude}`, node: location };
  }

  return choiceOf(m);
}

/** A tap on buttons, a list row or a native-flow button: the body is the chosen id, as CONVENTIONS asks. */
function choiceOf(m: Json): Content | undefined {
  if (isObject(m.buttonsResponseMessage)) return chosen('button', m.buttonsResponseMessage.selectedButtonId, m.buttonsResponseMessage);
  if (isObject(m.templateButtonReplyMessage))
    return chosen('button', m.templateButtonReplyMessage.selectedId, m.templateButtonReplyMessage);
  if (isObject(m.listResponseMessage))
    return chosen('interactive', obj(m.listResponseMessage.singleSelectReply).selectedRowId, m.listResponseMessage);
  if (isObject(m.interactiveResponseMessage)) {
    const node = m.interactiveResponseMessage;
    return chosen('interactive', nativeFlowId(obj(node.nativeFlowResponseMessage).paramsJson) || obj(node.body).text, node);
  }
  if (isObject(m.pollUpdateMessage)) return pollVote(m.pollUpdateMessage);
  return undefined;
}

function chosen(messageType: string, id: unknown, node: Json): Content | undefined {
  const body = str(id);
  return body ? { messageType, body, node } : undefined;
}

/** nativeFlowResponseMessage.paramsJson is a JSON string; quick_reply and single_select put the chosen id in `id`. */
function nativeFlowId(paramsJson: unknown): string {
  try {
    return str(obj(JSON.parse(str(paramsJson))).id);
  } catch {
    return '';
  }
}

/**
 * A poll vote whose options the engine has already decrypted: Evolution (and engine_a, by its
 * contract) replace Baileys' encrypted `vote` with `vote.selectedOptions`, the names of every option
 * the contact has ticked now (strings, or `{ name }` in some Evolution versions). The body is those
 * names joined with ", "; a vote that unticks everything is no choice and yields no event.
 */
function pollVote(update: Json): Content | undefined {
  const selected = obj(update.vote).selectedOptions;
  const names = (Array.isArray(selected) ? selected : []).map((o) => (isObject(o) ? str(o.name) : str(o))).filter(Boolean);
  if (names.length === 0) return undefined;
  return { messageType: 'poll_vote', body: names.join(', '), replyTo: str(obj(update.pollCreationMessageKey).id) };
}

/**
 * Baileys' WAMessageStatus (numbers) and Evolution's names of it, plus the Cloud-style names some
 * Evolution paths use. PENDING and DELETED are not delivery states and are not reported.
 */
const STATUS: Record<string, string> = {
  '0': 'failed',
  ERROR: 'failed',
  FAILED: 'failed',
  '2': 'sent',
  SERVER_ACK: 'sent',
  SENT: 'sent',
  '3': 'delivered',
  DELIVERY_ACK: 'delivered',
  DELIVERED: 'delivered',
  '4': 'read',
  READ: 'read',
  '5': 'read',
  PLAYED: 'read',
};

export const baileysStatus = (value: unknown): string | undefined => STATUS[String(value).toUpperCase()];
