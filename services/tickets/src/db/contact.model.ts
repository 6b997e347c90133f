import { Schema, type SchemaOptions } from 'mongoose';

/**
 * The identities a contact may be found by, besides an e-mail address (docs/decisions.md, "Contact
 * identity"): each is unique among a channel's live contacts, any may be missing.
 */
export const IDENTITY_FIELDS = ['number', 'bsuid', 'parentBsuid', 'lid'] as const;
export type IdentityField = (typeof IDENTITY_FIELDS)[number];

export interface ContactDoc {
  _id: number;
  tenantId: number;
  channelId: number;
  /**
   * The contact's key on its channel (unique with tenant, channel and email): its phone's digits
   * (E.164 without +), or the platform user id on social channels; for a contact known by no phone,
   * the identity it was first known by (its BSUID, parent BSUID or LID), replaced by the phone once
   * one is linked. Never shown as a number unless it is one (kit's shownIdentities).
   */
  number: string;
  /** The official channel's business-scoped user id (`CC.<alphanumeric>`). */
  bsuid?: string;
  /** Its parent BSUID (`CC.ENT.<alphanumeric>`), where the business has one. */
  parentBsuid?: string;
  /** The unofficial engines' LID, as its JID `<digits>@lid`. */
  lid?: string;
  /** The provider's username: display only, the latest seen. */
  username?: string;
  /**
   * Set when this contact was merged into another (the same person, known by two identities): the
   * survivor's id. Its tickets moved there; it is found by nothing but its id.
   */
  mergedInto?: number;
  /** A merged contact's phone, kept aside (its key released) until the survivor has it. */
  formerNumber?: string;
  email: string;
  name: string;
  /**
   * What createContact / updateContact set (contacts opened by messages have none of them).
   * `emailAddress` is a number contact's e-mail: `email` is part of the contact's identity (the
   * address of an e-mail contact, '' for a number), so it never changes.
   */
  emailAddress?: string;
  firstName?: string;
  lastName?: string;
  businessName?: string;
  externalKey?: string;
  /** The tags of the contact's tickets (kept by AddTags and RemoveTag), for listContacts' tagId. */
  tagIds?: number[];
  /** The contact's kanban column (updateContactKanban); cleared when the column is deleted. */
  kanbanId?: number | null;
  /** Its wallet: the users (agents) who own the contact (updateContactWallet). */
  walletIds?: number[];
  /** Custom fields (getContactExtraInfo; set by createContact / updateContact's extraInfo). */
  extraInfo?: Array<{ name: string; value: string }>;
  /** The contact's latest incoming message (OpenForContact's inbound_at): the waba 24-hour window. */
  lastInboundAt?: Date;
  createdAt: Date;
  updatedAt?: Date;
}

/** The contacts collection's schema and indexes. */
export function contactSchema(opts: SchemaOptions<ContactDoc>) {
  const contact = new Schema<ContactDoc>(
    {
      _id: Number,
      tenantId: Number,
      channelId: Number,
      number: String,
      email: String,
      name: String,
      emailAddress: String,
      firstName: String,
      lastName: String,
      businessName: String,
      externalKey: String,
      tagIds: { type: [Number], default: undefined },
      kanbanId: Number,
      walletIds: { type: [Number], default: undefined },
      extraInfo: { type: [new Schema({ name: String, value: String }, { _id: false })], default: undefined },
      lastInboundAt: Date,
      bsuid: String,
      parentBsuid: String,
      lid: String,
      username: String,
      mergedInto: Number,
      formerNumber: String,
      createdAt: Date,
      updatedAt: Date,
    },
    opts,
  );
  contact.index({ tenantId: 1, channelId: 1, number: 1, email: 1 }, { unique: true });
  // A contact by its other identities: on its channel (inbound, showcontact), or across the
  // tenant's channels (showticket by a BSUID or a LID).
  contact.index({ tenantId: 1, bsuid: 1, channelId: 1 });
  contact.index({ tenantId: 1, parentBsuid: 1, channelId: 1 });
  contact.index({ tenantId: 1, lid: 1, channelId: 1 });
  // listContacts: a tenant's contacts by name, with or without a tag.
  contact.index({ tenantId: 1, name: 1, _id: 1 });
  contact.index({ tenantId: 1, tagIds: 1, name: 1, _id: 1 });
  // A deleted kanban column is cleared from its contacts.
  contact.index({ tenantId: 1, kanbanId: 1 });
  return contact;
}
