import Type, { type Static } from 'typebox';
import { ContactId, NonEmpty, StringEnum } from './common';
import { rule } from '../validation/rules';
import { isHttpUrl } from '@convo/kit';
import { contentRules, RouteVia, SendMessageBody } from './message.schemas';

/**
 * Routes beyond the seed that public clients of this API call (docs/api/beyond-the-seed.md):
 * sends by number, sendPresence, contacts, catalogs, notes and the pause log.
 */

/** An id of the seed's kind: a positive int32 (numbers sent as JSON strings are coerced). */
const Int32Id = (description?: string) => Type.Integer({ minimum: 1, maximum: 2_147_483_647, description });
const PageNumber = Type.Integer({ minimum: 1, maximum: 100_000, default: 1, description: '1-based; pages hold 20 entries' });
const SearchParam = Type.Optional(Type.String({ maxLength: 100, description: 'Plain text, case-insensitive' }));
const PublicUrl = (description: string) => Type.String({ minLength: 1, maxLength: 2048, description });

// ---- sends by number -------------------------------------------------------------------------

/** What every send by number takes besides its content. */
const NumberSendFields = {
  number: ContactId("The contact on the integration's channel; its current ticket there is used, or opened"),
  externalKey: Type.Optional(
    Type.String({ minLength: 1, maxLength: 200, description: 'Idempotency key (120 s), shared with sendMessageByTicket' }),
  ),
  isClosed: Type.Optional(Type.Boolean({ default: false, description: 'Closes the ticket after sending' })),
  validateNumber: Type.Optional(
    Type.Boolean({ default: false, description: "Checks a phone number on the channel's network first; a BSUID or a LID is not checked" }),
  ),
  routeVia: RouteVia,
};

// sendMessageByTicket's content fields, with their bounds, without the ticket's own.
const { ticketId: _ticketId, reopen: _reopen, ...contentFields } = SendMessageBody.properties;

/** `POST {root}`: JSON `{number, body}` or multipart with `media`; the other media sources too. */
const content = rule('numberContent', (b) => contentRules(b));
/** /url and /base64: their schema requires the file's source. */
const fileContent = rule('fileContent', (b) => contentRules(b, true));

export const SendByNumberBody = Type.Object({ ...contentFields, ...NumberSendFields }, content);
export type SendByNumberBody = Static<typeof SendByNumberBody>;

export const SendUrlBody = Type.Object(
  {
    ...NumberSendFields,
    mediaUrl: PublicUrl('Public http(s) URL; no redirects, no private hosts'),
    body: contentFields.body,
    mimeType: contentFields.mimeType,
    fileName: contentFields.fileName,
  },
  fileContent,
);
export type SendUrlBody = Static<typeof SendUrlBody>;

export const SendBase64Body = Type.Object(
  {
    ...NumberSendFields,
    base64Data: Type.String({ minLength: 1, maxLength: 25_165_824, description: 'File content in base64' }),
    mimeType: Type.String({ minLength: 1, maxLength: 128 }),
    fileName: Type.String({ minLength: 1, maxLength: 200, description: 'Without extension' }),
    body: contentFields.body,
  },
  fileContent,
);
export type SendBase64Body = Static<typeof SendBase64Body>;

export const SendVoiceBody = Type.Object(
  {
    ...NumberSendFields,
    audio: PublicUrl('Public http(s) URL of an audio file (Ogg/Opus plays best), sent as a voice note'),
  },
  rule('voiceAudio', (b) =>
    b.audio === undefined || isHttpUrl(b.audio) ? [] : [{ field: 'audio', message: 'must be a public http or https URL' }],
  ),
);
export type SendVoiceBody = Static<typeof SendVoiceBody>;

// ---- WhatsApp groups ------------------------------------------------------------------------

/** A group id as clients send it: its digits (older ids `<digits>-<digits>`), with or without `@g.us`. */
const GROUP_ID = '^[0-9]{5,30}(-[0-9]{5,15})?(@g\\.us)?$';
const GroupFields = {
  groupId: Type.Optional(
    Type.String({
      maxLength: 60,
      pattern: GROUP_ID,
      description: 'The WhatsApp group id (e.g. 120363025246125486, with or without @g.us)',
    }),
  ),
  number: Type.Optional(
    Type.String({ maxLength: 60, pattern: GROUP_ID, description: 'The group id under the name older clients send it in; groupId wins' }),
  ),
  externalKey: NumberSendFields.externalKey,
  isClosed: NumberSendFields.isClosed,
};
const groupRule = (name: string) =>
  rule(name, (b) => (b.groupId !== undefined || b.number !== undefined ? [] : [{ field: 'groupId', message: 'is required' }]));

export const GroupSendBody = Type.Object({ ...GroupFields, body: NonEmpty('The message text', 4096) }, groupRule('groupSend'));
export type GroupSendBody = Static<typeof GroupSendBody>;
export const GroupMediaUrlBody = Type.Object(
  {
    ...GroupFields,
    mediaUrl: PublicUrl('Public http(s) URL; no redirects, no private hosts'),
    body: contentFields.body,
    mimeType: contentFields.mimeType,
    fileName: contentFields.fileName,
  },
  groupRule('groupMediaUrl'),
);
export type GroupMediaUrlBody = Static<typeof GroupMediaUrlBody>;

export const PresenceBody = Type.Object({
  ticketId: Int32Id(),
  state: StringEnum(['typing', 'paused'], { description: 'typing shows "typing…" to the contact; paused ends it' }),
});

// ---- contacts ----------------------------------------------------------------------------------

export const ContactNumberBody = Type.Object({ number: ContactId("Any identity of the contact on the integration's channel") });

const text = (description?: string) => Type.Optional(Type.String({ maxLength: 200, description }));
export const ContactBody = Type.Object({
  number: ContactId("The contact on the integration's channel (updateContact finds it by this)"),
  name: text(),
  email: Type.Optional(Type.String({ maxLength: 254, description: 'An e-mail address, or "" to clear it' })),
  firstName: text(),
  lastName: text(),
  businessName: text(),
  externalKey: text('Your id of the contact; a createContact retry with the same key answers the contact'),
  extraInfo: Type.Optional(
    Type.Array(Type.Object({ name: Type.String({ minLength: 1, maxLength: 100 }), value: Type.String({ maxLength: 1000 }) }), {
      maxItems: 50,
      description: 'Custom fields (getContactExtraInfo); replaces the stored ones',
    }),
  ),
});
export type ContactBody = Static<typeof ContactBody>;

export const ListContactsQuery = Type.Object({
  pageNumber: PageNumber,
  searchParam: SearchParam,
  tagId: Type.Optional(Int32Id('Contacts one of whose tickets has this tag')),
});

export const CatalogQuery = Type.Object({ pageNumber: PageNumber, searchParam: SearchParam });

// ---- notes and pauses --------------------------------------------------------------------------

export const ListNotesQuery = Type.Object({ ticketId: Int32Id(), pageNumber: PageNumber });
export const UpdateNoteBody = Type.Object({ noteId: Int32Id(), notes: NonEmpty('The new text', 10_000) });
export const PauseLogParams = Type.Object({ apiId: Type.String({ minLength: 1, maxLength: 64 }), ticketId: Int32Id() });
export const PageQuery = Type.Object({ pageNumber: PageNumber });
