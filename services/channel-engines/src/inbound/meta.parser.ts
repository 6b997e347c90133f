import { contactIdentity, contactNumberDigits, type proto } from '@convo/kit';
import { isObject, list, obj, scalarStr, type Json } from '../json';
import { socialChange, wabaReaction } from './meta-changes';

type InboundEvent = proto.channelEngines.InboundEvent;

/**
 * Meta's webhook envelope (already JSON-parsed and signature-checked by the gateway) → neutral
 * events. One POST may carry many entries, changes and events, for many accounts: each event names
 * its channel by channel_type + account_id. What we do not use (referrals, other webhook fields)
 * yields no event, never an error. docs/channels/providers-meta.md has the mapping.
 */
export function parseMetaWebhook(body: unknown): InboundEvent[] {
  const envelope = obj(body);
  const entries = list(envelope.entry).map(obj);
  switch (envelope.object) {
    case 'whatsapp_business_account':
      return entries.flatMap(wabaEntry);
    case 'page':
      return entries.flatMap((entry) => socialEntry(entry, 'social_b'));
    case 'instagram':
      return entries.flatMap((entry) => socialEntry(entry, 'social_a'));
    default:
      return [];
  }
}

// ---- WhatsApp Cloud API: entry[].changes[].value ------------------------------------------

function wabaEntry(entry: Json): InboundEvent[] {
  return list(entry.changes)
    .map(obj)
    .filter((change) => change.field === 'messages' || change.field === 'smb_message_echoes')
    .flatMap((change) => {
      const value = obj(change.value);
      const account = { channelType: 'waba', accountId: scalarStr(obj(value.metadata).phone_number_id) };
      const people = list(value.contacts).map(obj);
      if (change.field === 'smb_message_echoes') return list(value.message_echoes).map((m) => wabaEcho(obj(m), account));
      return [
        ...list(value.messages).map((m) => wabaMessage(obj(m), account, people)),
        ...list(value.statuses).map((s) => wabaStatus(obj(s), account, people)),
      ];
    });
}

/**
 * The `contacts[]` entry of the person an event names by phone (`wa_id`) or by BSUID (`user_id`,
 * `parent_user_id`): since Meta's business-scoped user ids, a user with a username may come with
 * no phone at all, so matching by `wa_id` alone would lose their name.
 */
function personOf(people: Json[], ...ids: string[]): Json {
  const named = ids.filter(Boolean);
  const isNamed = (c: Json) => [c.wa_id, c.user_id, c.parent_user_id].some((id) => named.includes(scalarStr(id)));
  return people.find(isNamed) ?? {};
}

/**
 * A contact's message. `from` (the phone) is absent for a user with a username whose number Meta
 * may not share; `from_user_id` (the BSUID) and `from_parent_user_id` name them instead, and the
 * person's `contacts[]` entry fills in what the message lacks. Without any of them the event still
 * goes out, with an empty `from`: the consumer decides.
 */
function wabaMessage(m: Json, account: Partial<InboundEvent>, people: Json[]): InboundEvent {
  const person = personOf(people, scalarStr(m.from), scalarStr(m.from_user_id), scalarStr(m.from_parent_user_id));
  const profile = obj(person.profile);
  const event: InboundEvent = {
    kind: 'message',
    ...account,
    from: scalarStr(m.from) || scalarStr(person.wa_id) || sharedPhone(m),
    bsuid: scalarStr(m.from_user_id) || scalarStr(person.user_id),
    parentBsuid: scalarStr(m.from_parent_user_id) || scalarStr(person.parent_user_id),
    username: scalarStr(profile.username),
    contactName: scalarStr(profile.name),
    providerMessageId: scalarStr(m.id),
    replyTo: scalarStr(obj(m.context).id),
    timestampMs: seconds(m.timestamp),
    ...wabaContent(m),
    rawJson: JSON.stringify(m),
  };
  return m.type === 'reaction' ? wabaReaction(m, event) : event;
}

/**
 * `smb_message_echoes` (coexistence): a message the business typed in the WhatsApp Business app,
 * `{ from: <the business>, to: <the contact>, id, timestamp, type, <content> }`: an outgoing
 * message of the contact's ticket. `to_user_id` names a contact Meta shares no number of.
 */
function wabaEcho(m: Json, account: Partial<InboundEvent>): InboundEvent {
  return {
    kind: 'message',
    ...account,
    fromMe: true,
    from: scalarStr(m.to),
    bsuid: scalarStr(m.to_user_id),
    parentBsuid: scalarStr(m.to_parent_user_id),
    providerMessageId: scalarStr(m.id),
    replyTo: scalarStr(obj(m.context).id),
    timestampMs: seconds(m.timestamp),
    ...wabaContent(m),
    rawJson: JSON.stringify(m),
  };
}

/**
 * A reply to the REQUEST_CONTACT_INFO template button is a `contacts` message marked `origin:
 * "contact_request"` whose card is the sender's own: its phone is the number of a sender Meta named
 * only by BSUID, so the pair is linked. '' for any other message.
 */
function sharedPhone(m: Json): string {
  if (m.type !== 'contacts' || !scalarStr(m.origin).startsWith('contact_request')) return '';
  const phone = obj(list(obj(list(m.contacts)[0]).phones)[0]);
  return scalarStr(phone.wa_id) || contactNumberDigits(scalarStr(phone.phone)) || '';
}

const WABA_MEDIA = new Set(['image', 'video', 'audio', 'document', 'sticker']);

function wabaContent(m: Json): Partial<InboundEvent> {
  const type = scalarStr(m.type);
  if (type === 'text') return { messageType: 'text', body: scalarStr(obj(m.text).body) };
  if (WABA_MEDIA.has(type)) {
    // Cloud API media come as an id to fetch with the channel's token, never as a URL.
    const media = obj(m[type]);
    return {
      messageType: type,
      body: scalarStr(media.caption),
      providerMediaId: scalarStr(media.id),
      mimeType: scalarStr(media.mime_type),
      fileName: scalarStr(media.filename),
    };
  }
  if (type === 'location') {
    const l = obj(m.location);
    return {
      messageType: 'location',
      body: [`${l.latitude},${l.longitude}`, scalarStr(l.name), scalarStr(l.address)].filter(Boolean).join('\n'),
    };
  }
  if (type === 'interactive') {
    // The chosen id: for sendButtonWABA buttons the id is the button's title (see WabaDriver).
    const i = obj(m.interactive);
    const choice = obj(i.button_reply ?? i.list_reply);
    return { messageType: 'interactive', body: scalarStr(choice.id) || scalarStr(obj(i.nfm_reply).response_json) };
  }
  if (type === 'button') {
    const b = obj(m.button);
    return { messageType: 'button', body: scalarStr(b.payload) || scalarStr(b.text) };
  }
  if (type === 'contacts') {
    return {
      messageType: 'contacts',
      body: list(m.contacts)
        .map((c) => contactCard(obj(c)))
        .filter(Boolean)
        .join('\n'),
    };
  }
  return { messageType: 'unknown', body: '', error: errorText(m.errors) };
}

/**
 * A shared contact card as one line: "Ana Souza: +55 11 98765-4321, +55 11 3333-4444" (the name or
 * the phones alone when the other is missing).
 */
function contactCard(card: Json): string {
  const name = scalarStr(obj(card.name).formatted_name);
  const phones = list(card.phones)
    .map(obj)
    .map((p) => scalarStr(p.phone) || scalarStr(p.wa_id))
    .filter(Boolean)
    .join(', ');
  return [name, phones].filter(Boolean).join(': ');
}

/**
 * A change of one of OUR messages. `recipient_id` (the phone) is absent when the message went to
 * a BSUID and Meta may not share the number; `recipient_user_id` is the BSUID or the parent BSUID
 * it went to, and the person's `contacts[]` entry (sent, delivered and read only) names both. Meta's
 * pages spell the parent of a status three ways; each is read.
 */
function wabaStatus(s: Json, account: Partial<InboundEvent>, people: Json[]): InboundEvent {
  const recipient = scalarStr(s.recipient_user_id);
  const person = personOf(people, scalarStr(s.recipient_id), recipient);
  const parents = [s.recipient_parent_user_id, s.parent_recipient_user_id, s.parent_user_id, person.parent_user_id];
  const parent = parents.map(scalarStr).find(Boolean) ?? '';
  const toParent = !!recipient && (recipient === parent || contactIdentity(recipient)?.kind === 'parentBsuid');
  return {
    kind: 'status',
    ...account,
    from: scalarStr(s.recipient_id) || scalarStr(person.wa_id),
    bsuid: (toParent ? '' : recipient) || scalarStr(person.user_id),
    parentBsuid: toParent ? recipient : parent,
    providerMessageId: scalarStr(s.id),
    status: scalarStr(s.status),
    timestampMs: seconds(s.timestamp),
    error: errorText(s.errors),
    ...pricingOf(s.pricing),
    rawJson: JSON.stringify(s),
  };
}

/**
 * A status's `pricing` ({ billable, pricing_model, category, type }), kept as Meta names it: under
 * per-message pricing (July 2025) `pricing_model` is "PMP" and `category` says what the message is
 * charged as. Nothing when the status carries none (failed ones, and sent ones of some versions).
 */
function pricingOf(value: unknown): Pick<InboundEvent, 'pricing'> {
  if (!isObject(value)) return {};
  // `billable` is deprecated under PMP: where it is left out, `type` "regular" is what Meta charges.
  const billable = typeof value.billable === 'boolean' ? value.billable : value.type === 'regular';
  return { pricing: { billable, pricingModel: scalarStr(value.pricing_model), category: scalarStr(value.category) } };
}

/** "(#131047) Re-engagement message: Message failed to send because more than 24 hours have passed…". */
function errorText(errors: unknown): string {
  const e = obj(list(errors)[0]);
  if (!Object.keys(e).length) return '';
  const parts = [...new Set([scalarStr(e.title) || scalarStr(e.message), scalarStr(obj(e.error_data).details)].filter(Boolean))];
  return `${e.code !== undefined ? `(#${e.code}) ` : ''}${parts.join(': ')}`;
}

// ---- Messenger (object "page") and Instagram (object "instagram"): entry[].messaging[] -----

function socialEntry(entry: Json, channelType: 'social_a' | 'social_b'): InboundEvent[] {
  const accountId = scalarStr(entry.id);
  return list(entry.messaging)
    .map(obj)
    .flatMap((event) => {
      const base: InboundEvent = {
        channelType,
        accountId,
        from: scalarStr(obj(event.sender).id),
        // messaging_feedback carries no timestamp of its own: the entry's time stands in.
        timestampMs: millis(event.timestamp) || millis(entry.time),
        rawJson: JSON.stringify(event),
      };
      return socialEvent(event, base);
    });
}

function socialEvent(event: Json, base: InboundEvent): InboundEvent[] {
  const change = socialChange(event, base, socialContent);
  if (change) return [change];
  if (event.message) {
    const m = obj(event.message);
    return [
      { kind: 'message', ...base, providerMessageId: scalarStr(m.mid), replyTo: scalarStr(obj(m.reply_to).mid), ...socialContent(m) },
    ];
  }
  if (event.postback) {
    const p = obj(event.postback);
    return [
      {
        kind: 'message',
        ...base,
        providerMessageId: scalarStr(p.mid) || derivedId('postback', base),
        messageType: 'postback',
        body: scalarStr(p.payload),
      },
    ];
  }
  if (event.delivery) {
    const d = obj(event.delivery);
    const status = { kind: 'status', ...base, status: 'delivered', timestampMs: millis(d.watermark) || base.timestampMs };
    const mids = list(d.mids).map(scalarStr).filter(Boolean);
    // Without mids Messenger only says "everything up to the watermark", as for read.
    return mids.length ? mids.map((mid) => ({ ...status, providerMessageId: mid })) : [{ ...status, providerMessageId: '' }];
  }
  if (event.read) {
    // Messenger reports reads as a watermark (every message sent before it was read), not by mid;
    // Instagram names the mid. Without a mid the event has provider_message_id "" and the
    // watermark as its timestamp, for the consumer to apply to the contact's earlier messages.
    const r = obj(event.read);
    return [
      {
        kind: 'status',
        ...base,
        providerMessageId: scalarStr(r.mid),
        status: 'read',
        timestampMs: millis(r.watermark) || base.timestampMs,
      },
    ];
  }
  if (event.messaging_feedback) {
    return [
      {
        kind: 'message',
        ...base,
        providerMessageId: derivedId('feedback', base),
        messageType: 'feedback',
        body: feedbackAnswer(event.messaging_feedback),
      },
    ];
  }
  return [];
}

/** Attachment type → our message type and a MIME class (Meta gives a URL, not the file's type). */
const ATTACHMENT: Record<string, { messageType: string; mimeType: string }> = {
  image: { messageType: 'image', mimeType: 'image/*' },
  video: { messageType: 'video', mimeType: 'video/*' },
  audio: { messageType: 'audio', mimeType: 'audio/*' },
  file: { messageType: 'document', mimeType: 'application/octet-stream' },
};

function socialContent(m: Json): Partial<InboundEvent> {
  const text = scalarStr(m.text);
  const quickReply = obj(m.quick_reply);
  if (quickReply.payload !== undefined) return { messageType: 'quick_reply', body: scalarStr(quickReply.payload) };
  const attachment = obj(list(m.attachments)[0]);
  if (attachment.type !== undefined) {
    const payload = obj(attachment.payload);
    const known = ATTACHMENT[scalarStr(attachment.type)];
    const messageType = payload.sticker_id !== undefined ? 'sticker' : (known?.messageType ?? 'unknown');
    return { messageType, body: text, mediaUrl: scalarStr(payload.url), mimeType: known?.mimeType ?? '' };
  }
  return text ? { messageType: 'text', body: text } : { messageType: 'unknown', body: '' };
}

/** The answer's score (the first question's payload); a free-form follow-up stays in raw_json. */
function feedbackAnswer(feedback: unknown): string {
  const screen = obj(list(obj(feedback).feedback_screens)[0]);
  const question = obj(Object.values(obj(screen.questions))[0]);
  return scalarStr(question.payload);
}

/**
 * Events without a mid get an id built from what identifies them (sender and time), so Meta's
 * redelivery of the same event yields the same id and is stored once.
 */
const derivedId = (kind: string, base: InboundEvent) => `${kind}:${base.from}:${base.timestampMs}`;

/** Milliseconds as Meta's social webhooks give them; 0 when absent. */
function millis(value: unknown): number {
  const n = Number(value);
  return Number.isFinite(n) && n > 0 ? n : 0;
}

/** WhatsApp gives Unix seconds as a string; 0 when absent. */
function seconds(value: unknown): number {
  return millis(value) * 1000;
}
