import { isObject, type Json, obj, str } from '../json';
import { contactIds, type InboundEvent, secondsToMs } from './wa-engine';

/**
 * What a Baileys WAMessage says about another message rather than being one: a reaction
 * (`reactionMessage { key, text }`, `text: ""` removing it), a deletion for everyone
 * (`protocolMessage { key, type: REVOKE }`) or an edit (`protocolMessage { key, type: MESSAGE_EDIT,
 * editedMessage }`, which Baileys 7 also wraps as `editedMessage.message.protocolMessage`). The
 * protobuf enum arrives as its number (REVOKE 0, MESSAGE_EDIT 14) or its name, by how the engine
 * serialised it. `key.fromMe` of the envelope says who did it; the inner key names the message.
 */

const REVOKE = new Set(['0', 'REVOKE']);
const MESSAGE_EDIT = new Set(['14', 'MESSAGE_EDIT']);

type Envelope = Pick<InboundEvent, 'from' | 'lid' | 'contactName' | 'providerMessageId' | 'timestampMs' | 'rawJson' | 'fromMe'>;

/** The change `message` (already unwrapped of ephemeral/view-once) carries, or undefined when it is none. */
export function baileysChange(msg: Json, message: Json, chat: string): InboundEvent | undefined {
  const key = obj(msg.key);
  const envelope: Envelope = {
    ...contactIds(chat, key.remoteJidAlt, key.senderPn, key.senderLid, key.previousRemoteJid),
    contactName: key.fromMe === true ? '' : str(msg.pushName),
    providerMessageId: str(key.id),
    timestampMs: secondsToMs(msg.messageTimestamp),
    rawJson: JSON.stringify(msg),
    fromMe: key.fromMe === true,
  };
  if (isObject(message.reactionMessage)) {
    const reaction = message.reactionMessage;
    const target = str(obj(reaction.key).id);
    const at = millis(reaction.senderTimestampMs) || envelope.timestampMs;
    return target ? { kind: 'reaction', ...envelope, targetId: target, body: str(reaction.text), timestampMs: at } : undefined;
  }
  const protocol = obj(message.protocolMessage ?? obj(obj(message.editedMessage).message).protocolMessage);
  return isObject(protocol.key) ? protocolChange(protocol, envelope) : undefined;
}

/**
 * A protocolMessage on its own: what Evolution's messages.edited posts (`data` is the
 * protocolMessage, its key the edited message's, `key.fromMe` the side that wrote it).
 */
export function protocolChange(protocol: Json, envelope: Partial<Envelope>): InboundEvent | undefined {
  const key = obj(protocol.key);
  const target = str(key.id);
  if (!target) return undefined;
  const type = String(protocol.type ?? (isObject(protocol.editedMessage) ? 'MESSAGE_EDIT' : ''));
  const base = { ...envelope, targetId: target, fromMe: envelope.fromMe ?? key.fromMe === true };
  if (REVOKE.has(type)) return { kind: 'delete', ...base };
  if (!MESSAGE_EDIT.has(type)) return undefined;
  const edited = obj(protocol.editedMessage);
  const node = obj(edited.extendedTextMessage ?? edited.imageMessage ?? edited.videoMessage ?? edited.documentMessage);
  const body = typeof edited.conversation === 'string' ? edited.conversation : str(node.text) || str(node.caption);
  const at = millis(protocol.timestampMs) || base.timestampMs || 0;
  return { kind: 'edit', ...base, body, timestampMs: at };
}

/** Milliseconds as a number, a numeric string or a protobuf Long ({ low, high }); 0 when unknown. */
function millis(value: unknown): number {
  return secondsToMs(value) / 1000;
}

/**
 * whatsmeow's JSON of a WhatsApp message (WuzAPI's `event.Message`, uazapi's `content`) in
 * Baileys' spelling: whatsmeow writes the proto's acronyms in capitals (a key's `ID`, stanzaID,
 * selectedRowID, paramsJSON, mentionedJID) where Baileys writes id, stanzaId, selectedRowId,
 * paramsJson, mentionedJid.
 */
export function baileysSpelling(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(baileysSpelling);
  if (!isObject(value)) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, inner]) => [
      key === 'ID' ? 'id' : key.replace(/(ID|JID|JSON)$/, (acronym) => acronym[0] + acronym.slice(1).toLowerCase()),
      baileysSpelling(inner),
    ]),
  );
}
