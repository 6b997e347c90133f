import { providerFailed } from '@convo/kit';
import { protocolChange } from './baileys-changes';
import { baileysMessage, baileysStatus } from './baileys-inbound';
import type { NumberCheck, PresenceState } from './driver';
import { type Json, obj, str } from '../json';
import { connectionEvent, contactIds, type InboundEvent, isDirectChat, statusEvent, webhookBody } from './wa-engine';

/**
 * What the two Evolution API drivers share: engine_b speaks v2, engine_h v1. Their send bodies
 * differ; the number check, the refusal envelope and the webhook events are the same apart from
 * where a receipt keeps its id and time.
 */

/**
 * How long Evolution shows "typing…": its sendPresence holds the request for `delay` ms, then sends
 * paused itself, so it stays well under the provider timeout.
 */
export const EVOLUTION_TYPING_MS = 3_000;

/** The body of `POST /chat/sendPresence/{instance}` (v2; v1 nests presence and delay in `options`). */
export function evolutionPresence(number: string, state: PresenceState): { number: string; presence: string; delay: number } {
  return { number, presence: state === 'typing' ? 'composing' : 'paused', delay: state === 'typing' ? EVOLUTION_TYPING_MS : 0 };
}

/** `POST /chat/whatsappNumbers/{instance} { numbers }` answers `[{ exists, jid, number }]`. */
export function evolutionNumberCheck(kind: string, answer: unknown): NumberCheck {
  const first = obj(Array.isArray(answer) ? answer[0] : undefined);
  if (typeof first.exists !== 'boolean') throw providerFailed(`${kind} answered the number check without exists`);
  return { exists: first.exists, networkId: first.exists ? str(first.jid) : '' };
}

/**
 * Evolution answers a refusal as `{ status, error: "Bad Request", response: { message: [...] } }`:
 * the reason is the `response.message` list (or text), not the generic `error`. `describe` writes
 * an item that is not a text; undefined when the list says nothing.
 */
export function evolutionReason(body: unknown, describe: (item: unknown) => string = (item) => JSON.stringify(item)): string | undefined {
  const message = obj(obj(body).response).message;
  const reasons = (Array.isArray(message) ? message : [message])
    .map((m) => (typeof m === 'string' ? m : m === undefined ? '' : describe(m)))
    .filter(Boolean);
  return reasons.length ? reasons.join('; ') : undefined;
}

/** Where a version keeps what the shared webhook reading needs. */
export interface EvolutionVersion {
  /** The id and time (ms, 0 when unknown) of the message a messages.update receipt is about. */
  receipt(data: Json, envelope: Json): { id: string; timestampMs: number };
  /** Why connection.update closed the session ('' when the version does not say). */
  closeReason(data: Json): string;
}

/**
 * The webhook body `{ event, instance, data, date_time, ... }`: messages.upsert carries one
 * Baileys WAMessage (a reaction, an edit or a revoke among them), messages.update one receipt,
 * messages.edited the edit's protocolMessage, messages.delete the deleted message's key,
 * connection.update `{ state }`. Event names are
 * read case- and separator-blind (the config's MESSAGES_UPSERT = messages.upsert).
 */
export function evolutionEvents(kind: string, body: unknown, version: EvolutionVersion): InboundEvent[] {
  const envelope = webhookBody(kind, body);
  const data = obj(envelope.data);
  switch (str(envelope.event).toLowerCase().replace(/_/g, '.')) {
    case 'messages.upsert': {
      // A media link is `message.mediaUrl` when the server stores media in S3/MinIO.
      const message = baileysMessage(data);
      return message ? [message] : [];
    }
    case 'messages.edited': {
      // `data` is the protocolMessage itself (key: the edited message's, editedMessage: the new content).
      const chat = str(obj(data.key).remoteJid);
      if (!isDirectChat(chat)) return [];
      const change = protocolChange(data, {
        ...contactIds(chat),
        rawJson: JSON.stringify(data),
        timestampMs: Date.parse(str(envelope.date_time)) || 0,
      });
      return change ? [change] : [];
    }
    case 'messages.delete': {
      // A deletion for everyone: `data` is the deleted message's key (some versions wrap it in `key`).
      const key = obj(data.key ?? data);
      const chat = str(key.remoteJid);
      if (!isDirectChat(chat) || !str(key.id)) return [];
      return [
        {
          kind: 'delete',
          ...contactIds(chat),
          targetId: str(key.id),
          fromMe: key.fromMe === true,
          rawJson: JSON.stringify(data),
          timestampMs: Date.parse(str(envelope.date_time)) || 0,
        },
      ];
    }
    case 'messages.update': {
      // Receipts of our own messages only; fromMe false is our own device reading the contact's message.
      const status = baileysStatus(data.status);
      const { id, timestampMs } = version.receipt(data, envelope);
      return data.fromMe === true && status && id ? [statusEvent(id, status, timestampMs)] : [];
    }
    case 'connection.update':
      if (data.state === 'open') return [connectionEvent('CONNECTED')];
      if (data.state === 'close') return [connectionEvent('DISCONNECTED', version.closeReason(data))];
      return [];
    default:
      return [];
  }
}
