import { BSUID_PATTERN, LID_PATTERN } from '@convo/kit';
import Type, { type Static } from 'typebox';
import { Envelope, Exact, Nullable, PAGE } from './envelopes';

/**
 * A contact's identities as every answer shows them (docs/api/contact-identities.md): `number`
 * always, the others only when known.
 */
export const IDENTITIES = {
  number: Type.String({
    description:
      'The phone number\'s digits (on social channels the platform user id); "" when the contact has none, known only by its BSUID or LID',
  }),
  bsuid: Type.Optional(
    Type.String({
      pattern: BSUID_PATTERN,
      description: 'waba: the business-scoped user id Meta gives the contact (`CC.<alphanumeric>`); when known',
    }),
  ),
  parentBsuid: Type.Optional(
    Type.String({
      pattern: BSUID_PATTERN,
      description: 'waba: the parent BSUID (`CC.ENT.<alphanumeric>`) where the business has one; when known',
    }),
  ),
  lid: Type.Optional(
    Type.String({ pattern: LID_PATTERN, description: "Unofficial engines: the contact's LID (`<digits>@lid`); when known" }),
  ),
  username: Type.Optional(Type.String({ description: "waba: the contact's WhatsApp username, for display only (it changes); when known" })),
};

/** A contact of a channel (showcontact, createContact, updateContact, listContacts). */
export const Contact = Exact(
  {
    id: Type.Integer(),
    ...IDENTITIES,
    name: Type.String(),
    email: Nullable('string'),
    firstName: Nullable('string'),
    lastName: Nullable('string'),
    businessName: Nullable('string'),
    externalKey: Nullable('string'),
    whatsappId: Type.Integer(),
    tagIds: Type.Array(Type.Integer()),
    kanban: Nullable('integer', { description: "The contact's kanban column (updateContactKanban)" }),
    walletIds: Type.Array(Type.Integer(), { description: 'The users who own the contact (updateContactWallet)' }),
    createdAt: Type.String(),
    updatedAt: Type.String(),
  },
  { $id: 'Contact' },
);
export type ContactRecord = Static<typeof Contact>;

export const ContactResult = Envelope(Contact, {
  $id: 'ContactResult',
  // A waba contact who never gave the business its number: known by its BSUID and username.
  example: {
    id: 11,
    number: '',
    bsuid: 'BR.13491208655302741918',
    username: 'ana.souza',
    name: 'Ana Souza',
    email: null,
    firstName: null,
    lastName: null,
    businessName: null,
    externalKey: null,
    whatsappId: 3,
    tagIds: [],
    kanban: null,
    walletIds: [],
    createdAt: '2026-11-26T12:00:00.000Z',
    updatedAt: '2026-11-26T12:00:00.000Z',
  },
});
export const ContactCreated = Envelope(Exact({ contact: Contact, created: Type.Boolean() }), { $id: 'ContactCreated' });
export const ContactPage = Envelope(Exact({ contacts: Type.Array(Contact), ...PAGE }), { $id: 'ContactPage' });
export const ContactExtraInfo = Envelope(
  Exact({ contactId: Type.Integer(), extraInfo: Type.Array(Exact({ name: Type.String(), value: Type.String() })) }),
  {
    $id: 'ContactExtraInfo',
    example: { contactId: 9, extraInfo: [{ name: 'Plan', value: 'Gold' }] },
  },
);
