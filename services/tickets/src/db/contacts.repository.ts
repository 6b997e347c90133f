import { insertOnce } from '@convo/kit/claims';
import { isDuplicateKey, nextSequence } from '@convo/kit/mongo';
import type { Connection, QueryFilter } from 'mongoose';
import type { ContactDoc, Models } from './models';
import { escapeRegex, IDENTITY_FIELDS } from './search';

/** listContacts' filters; every one is optional but the tenant. */
export interface ContactQuery {
  tenantId: number;
  search?: string;
  tagId?: number;
}

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
   * Finds the contact of a channel, creating it once even under concurrent callers; `name` (the
   * provider's profile name) is given to a new contact only.
   */
  async findOrCreateContact(tenantId: number, channelId: number, number: string, email: string, name = ''): Promise<ContactDoc> {
    const filter = { tenantId, channelId, number, email };
    const existing = await this.models.Contact.findOne(filter).lean<ContactDoc>().exec();
    if (existing) return existing;
    const doc: ContactDoc = { _id: await nextSequence(this.conn, 'contact'), ...filter, name, createdAt: new Date() };
    try {
      await this.models.Contact.create(doc);
      return doc;
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
      return (await this.models.Contact.findOne(filter).lean<ContactDoc>().exec())!;
    }
  }

  /** The contact wrote at `at`: kept as its lastInboundAt when it moves the time on (movesInbound). */
  async recordContactInbound(contact: ContactDoc, at: Date): Promise<ContactDoc> {
    if (!movesInbound(contact.lastInboundAt, at)) return contact;
    await this.models.Contact.updateOne({ _id: contact._id, tenantId: contact.tenantId }, { $max: { lastInboundAt: at } }).exec();
    return { ...contact, lastInboundAt: at };
  }

  /** A contact of a channel by its number (the unique index's equality fields). */
  findContactByNumber(tenantId: number, channelId: number, number: string) {
    return this.models.Contact.findOne({ tenantId, channelId, number, email: '' }).lean<ContactDoc>().exec();
  }

  /** Inserts a new contact; false when the channel has that number already (unique index). */
  insertContact(doc: ContactDoc): Promise<boolean> {
    return insertOnce(() => this.models.Contact.create(doc));
  }

  updateContactByNumber(tenantId: number, channelId: number, number: string, set: Partial<ContactDoc>) {
    return this.models.Contact.findOneAndUpdate({ tenantId, channelId, number, email: '' }, { $set: set }, { returnDocument: 'after' })
      .lean<ContactDoc>()
      .exec();
  }

  listContacts(query: ContactQuery, skip: number, limit: number) {
    return this.models.Contact.find(contactFilter(query)).sort(BY_NAME).skip(skip).limit(limit).lean<ContactDoc[]>().exec();
  }

  countContacts(query: ContactQuery) {
    return this.models.Contact.countDocuments(contactFilter(query)).exec();
  }



  findContactById(tenantId: number, id: number) {
    return this.models.Contact.findOne({ _id: id, tenantId }).lean<ContactDoc>().exec();
  }

  updateContactById(tenantId: number, id: number, set: Partial<ContactDoc>) {
    return this.models.Contact.findOneAndUpdate({ _id: id, tenantId }, { $set: set }, { returnDocument: 'after' }).lean<ContactDoc>().exec();
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
  const filter: QueryFilter<ContactDoc> = { tenantId: q.tenantId };
  if (q.tagId !== undefined) filter.tagIds = q.tagId;
  const search = q.search?.trim();
  if (search) {
    const text = { $regex: escapeRegex(search), $options: 'i' };
    const digits = /^[+\d\s().-]+$/.test(search) ? search.replace(/\D/g, '') : '';
    filter.$or = [
      ...['name', 'email', 'emailAddress', ...IDENTITY_FIELDS].map((field) => ({ [field]: text })),
      { number: digits ? { $regex: escapeRegex(digits) } : text },
    ];
  }
  return filter;
}
