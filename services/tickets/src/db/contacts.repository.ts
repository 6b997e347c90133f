import { insertOnce } from '@convo/kit/claims';
import { nextSequence } from '@convo/kit/mongo';
import type { Connection, QueryFilter } from 'mongoose';
import type { ContactDoc, IdentityField } from './contact.model';
import type { Models } from './models';
import { escapeRegex } from '@convo/kit/mongo';
import { SEARCHED_IDENTITIES } from './search';

/** listContacts' filters; every one is optional but the tenant. */
export interface ContactQuery {
  tenantId: number;
  search?: string;
  tagId?: number;
}

/** How many contacts of a channel one identity lookup reads: two or more are merged into one. */
const IDENTITY_MATCHES = 3;
/** showticket by a BSUID or LID: the tenant's contacts holding it, one per channel at most. */
const TENANT_IDENTITY_MATCHES = 50;
/** Lists of contacts, tags and queues: by name, the id breaking ties (served by their indexes). */
const BY_NAME = { name: 1, _id: 1 } as const;

/**
 * How far a contact's last inbound time may lag its latest message: a message within this of the
 * time kept does not rewrite it (on the contact or its ticket). A contact writing several messages
 * a minute then costs one write a minute instead of two per message; the 24-hour window it opens
 * ends at most this much earlier than Meta's, never later.
 */
export const INBOUND_TIME_STEP_MS = 60_000;

/** Whether a message at `at` moves a last inbound time `known` on (by INBOUND_TIME_STEP_MS or more, or there is none). */
export function movesInbound(known: Date | undefined, at: Date): boolean {
  return !known || at.getTime() - known.getTime() >= INBOUND_TIME_STEP_MS;
}

/** Contacts of a tenant's channels. */
export class ContactsRepository {
  constructor(
    private readonly conn: Connection,
    private readonly models: Models,
  ) {}

  /**
   * The channel's contacts that hold an identity (a few: more than one is a person known twice,
   * which the caller merges). Merged contacts keep none of their identities once the merge is done.
   */
  findByIdentity(tenantId: number, channelId: number, field: IdentityField, value: string): Promise<ContactDoc[]> {
    return this.models.Contact.find({ tenantId, channelId, [field]: value })
      .limit(IDENTITY_MATCHES)
      .lean<ContactDoc[]>()
      .exec();
  }

  /** The tenant's contacts, on any channel, that hold a BSUID, parent BSUID or LID (showticket). */
  findTenantContactsByIdentity(tenantId: number, field: Exclude<IdentityField, 'number'>, value: string): Promise<ContactDoc[]> {
    return this.models.Contact.find({ tenantId, [field]: value })
      .limit(TENANT_IDENTITY_MATCHES)
      .lean<ContactDoc[]>()
      .exec();
  }

  /** An e-mail (or group) contact of a channel, found or created once even under concurrent callers. */
  async findOrCreateByEmail(tenantId: number, channelId: number, email: string): Promise<ContactDoc> {
    const filter = { tenantId, channelId, number: '', email };
    const existing = await this.models.Contact.findOne(filter).lean<ContactDoc>().exec();
    if (existing) return existing;
    const doc: ContactDoc = { _id: await nextSequence(this.conn, 'contact'), ...filter, name: '', createdAt: new Date() };
    if (await this.insertContact(doc)) return doc;
    return (await this.models.Contact.findOne(filter).lean<ContactDoc>().exec())!;
  }

  /**
   * Sets fields of a live contact (not merged meanwhile); the contact after, null when it was
   * merged or is gone. A duplicate key (its new number is another contact's) is thrown.
   */
  setContactFields(contact: ContactDoc, set: Partial<ContactDoc>, unset: string[] = []): Promise<ContactDoc | null> {
    const update = {
      $set: { ...set, updatedAt: new Date() },
      ...(unset.length && { $unset: Object.fromEntries(unset.map((f) => [f, 1])) }),
    };
    return this.models.Contact.findOneAndUpdate({ _id: contact._id, tenantId: contact.tenantId, mergedInto: { $exists: false } }, update, {
      returnDocument: 'after',
    })
      .lean<ContactDoc>()
      .exec();
  }

  /** Marks `absorbed` as merged into `survivorId` (a merge under way is then finished by whoever finds it). */
  async markMerged(absorbed: ContactDoc, survivorId: number): Promise<void> {
    await this.models.Contact.updateOne(
      { _id: absorbed._id, tenantId: absorbed.tenantId },
      { $set: { mergedInto: survivorId, updatedAt: new Date() } },
    ).exec();
  }

  /**
   * A merged contact gives up its identities: its key becomes `merged:<id>` (unique, and no
   * identity's form) and its other identities go, so that nothing finds it by them any more; its
   * phone stays as formerNumber until the survivor has it.
   */
  async releaseIdentities(absorbed: ContactDoc, phone?: string): Promise<void> {
    await this.models.Contact.updateOne(
      { _id: absorbed._id, tenantId: absorbed.tenantId },
      { $set: { number: `merged:${absorbed._id}`, ...(phone && { formerNumber: phone }) }, $unset: { bsuid: 1, parentBsuid: 1, lid: 1 } },
    ).exec();
  }

  /** What a survivor takes of a merged contact besides identities: its tags and its latest inbound time. */
  async absorbActivity(survivor: ContactDoc, absorbed: ContactDoc): Promise<void> {
    const update = {
      ...(absorbed.tagIds?.length && { $addToSet: { tagIds: { $each: absorbed.tagIds } } }),
      ...(absorbed.lastInboundAt && { $max: { lastInboundAt: absorbed.lastInboundAt } }),
    };
    if (Object.keys(update).length) await this.models.Contact.updateOne({ _id: survivor._id, tenantId: survivor.tenantId }, update).exec();
  }

  /** The contact wrote at `at`: kept as its lastInboundAt when it moves the time on (movesInbound). */
  async recordContactInbound(contact: ContactDoc, at: Date): Promise<ContactDoc> {
    if (!movesInbound(contact.lastInboundAt, at)) return contact;
    await this.models.Contact.updateOne({ _id: contact._id, tenantId: contact.tenantId }, { $max: { lastInboundAt: at } }).exec();
    return { ...contact, lastInboundAt: at };
  }

  /** Inserts a new contact; false when the channel has that number already (unique index). */
  insertContact(doc: ContactDoc): Promise<boolean> {
    return insertOnce(() => this.models.Contact.create(doc));
  }

  /** A page of the tenant's contacts (merged ones are not listed). */
  listContacts(query: ContactQuery, skip: number, limit: number) {
    return this.models.Contact.find(contactFilter(query)).sort(BY_NAME).skip(skip).limit(limit).lean<ContactDoc[]>().exec();
  }

  countContacts(query: ContactQuery) {
    return this.models.Contact.countDocuments(contactFilter(query)).exec();
  }

  /** A contact by id, as stored (a merged one included: see mergedInto). */
  findContactById(tenantId: number, id: number) {
    return this.models.Contact.findOne({ _id: id, tenantId }).lean<ContactDoc>().exec();
  }

  updateContactById(tenantId: number, id: number, set: Partial<ContactDoc>) {
    return this.models.Contact.findOneAndUpdate({ _id: id, tenantId }, { $set: set }, { returnDocument: 'after' })
      .lean<ContactDoc>()
      .exec();
  }

  async addContactTags(tenantId: number, contactId: number, tagIds: number[]): Promise<void> {
    await this.models.Contact.updateOne({ _id: contactId, tenantId }, { $addToSet: { tagIds: { $each: tagIds } } }).exec();
  }

  /** Takes the tag off the contact unless another of its tickets still has it. */
  async dropContactTagIfUnused(tenantId: number, contactId: number, tagId: number): Promise<void> {
    const still = await this.models.Ticket.findOne({ tenantId, contactId, tagIds: tagId }, { _id: 1 }).lean().exec();
    if (!still) await this.models.Contact.updateOne({ _id: contactId, tenantId }, { $pull: { tagIds: tagId } }).exec();
  }
}

function contactFilter(q: ContactQuery): QueryFilter<ContactDoc> {
  const filter: QueryFilter<ContactDoc> = { tenantId: q.tenantId, mergedInto: { $exists: false } };
  if (q.tagId !== undefined) filter.tagIds = q.tagId;
  const search = q.search?.trim();
  if (search) {
    const text = { $regex: escapeRegex(search), $options: 'i' };
    const digits = /^[+\d\s().-]+$/.test(search) ? search.replace(/\D/g, '') : '';
    filter.$or = [
      ...['name', 'email', 'emailAddress', ...SEARCHED_IDENTITIES].map((field) => ({ [field]: text })),
      { number: digits ? { $regex: escapeRegex(digits) } : text },
    ];
  }
  return filter;
}
