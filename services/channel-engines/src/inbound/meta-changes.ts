import type { proto } from '@convo/kit';
import { obj, scalarStr, type Json } from '../json';

type InboundEvent = proto.channelEngines.InboundEvent;

// What Meta reports besides the contact's messages (docs/channels/providers-meta.md, "The whole
// conversation"): reactions on WhatsApp, and on Messenger and Instagram the page's own messages
// (echoes), reactions, edits and deletions.

/** A WhatsApp `reaction` message: `reaction { message_id, emoji }`; an emoji absent or "" removes it. */
export function wabaReaction(m: Json, event: InboundEvent): InboundEvent {
  const reaction = obj(m.reaction);
  return { ...event, kind: 'reaction', targetId: scalarStr(reaction.message_id), body: scalarStr(reaction.emoji), messageType: '' };
}

/**
 * A Messenger/Instagram messaging event that is not the contact's message, or undefined:
 * - `message.is_echo`: a message the page sent (from Meta's inbox, the app, or by us through the
 *   Send API): an outgoing message of the contact, who is its `recipient`;
 * - `message.is_deleted` (Instagram's unsend): the contact deleted the message `mid`;
 * - `reaction { mid, action: react|unreact, emoji }`: on the message `mid`;
 * - `message_edit { mid, text }`: the contact edited the message `mid`.
 * Events without an id of their own get one from sender and time, so a redelivery keeps it.
 */
export function socialChange(event: Json, base: InboundEvent, content: (m: Json) => Partial<InboundEvent>): InboundEvent | undefined {
  const derived = (kind: string) => `${kind}:${base.from}:${base.timestampMs}`;
  if (event.message) {
    const m = obj(event.message);
    if (m.is_echo) {
      const contact = scalarStr(obj(event.recipient).id);
      return {
        kind: 'message',
        ...base,
        from: contact,
        fromMe: true,
        providerMessageId: scalarStr(m.mid),
        replyTo: scalarStr(obj(m.reply_to).mid),
        ...content(m),
      };
    }
    if (m.is_deleted) return { kind: 'delete', ...base, targetId: scalarStr(m.mid), providerMessageId: derived('delete') };
    return undefined;
  }
  if (event.reaction) {
    const r = obj(event.reaction);
    const emoji = r.action === 'unreact' ? '' : scalarStr(r.emoji);
    return { kind: 'reaction', ...base, targetId: scalarStr(r.mid), body: emoji, providerMessageId: derived('reaction') };
  }
  if (event.message_edit) {
    const e = obj(event.message_edit);
    return {
      kind: 'edit',
      ...base,
      targetId: scalarStr(e.mid),
      body: scalarStr(e.text),
      providerMessageId: `edit:${scalarStr(e.mid)}:${scalarStr(e.num_edit)}`,
    };
  }
  return undefined;
}
