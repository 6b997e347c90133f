import { conflict, notFound, Issues, validation, type proto } from '@convo/kit';
import type { ContactDoc } from '../db/contact.model';
import type { TicketsDatabase } from '../db/repositories';
import type { CatalogService } from './catalog.service';
import { ContactIdentities, identitiesOf, ticketContactOf } from './contact-identities';
import { identityFields, iso } from './ticket-view';
import type { TenantUsers } from './users';

/** listContacts answers pages of this many contacts, as listTickets does. */
export const CONTACTS_PAGE_SIZE = 20;
const MAX_TEXT = 200;
const MAX_EMAIL = 254;
/** A contact's wallet: at most this many users. */
export const MAX_WALLET = 20;
/** Custom fields: at most this many, names of 100 and values of 1000 characters. */
const MAX_EXTRA = 50;

/** The optional fields of createContact / updateContact, as the contact document names them. */
const FIELDS = [
  ['name', 'name', MAX_TEXT],
  ['email', 'emailAddress', MAX_EMAIL],
  ['firstName', 'firstName', MAX_TEXT],
  ['lastName', 'lastName', MAX_TEXT],
  ['businessName', 'businessName', MAX_TEXT],
  ['externalKey', 'externalKey', MAX_TEXT],
] as const;

type Input = proto.tickets.ContactInput__Output;

/**
 * Contacts of the external API. A contact belongs to one channel (the same number on two channels
 * is two contacts, each with its own tickets); show, create and update address the integration's
 * channel by number, listContacts covers the tenant. Contacts opened by messages (inbound, sends,
 * createTicket) are the same documents.
 */
export class ContactsService {
  private readonly identities: ContactIdentities;

  constructor(
    private readonly repo: TicketsDatabase,
    private readonly catalog: CatalogService,
    private readonly users: TenantUsers,
  ) {
    this.identities = new ContactIdentities(repo);
  }

  /** showcontact: the channel's contact holding the identity given (a number, a BSUID or a LID). */
  async getContact(req: proto.tickets.GetContactRequest__Output): Promise<proto.tickets.ContactRecord> {
    const contact = await this.identities.find(req.tenantId, requireChannel(req.channelId), identitiesOf(req.number));
    if (!contact) throw notFound('contact', 'No contact with this identity on the channel');
    return toContactRecord(contact);
  }

  /**
   * A new contact of the channel, by a number, a BSUID or a LID (its key: see ContactDoc.number).
   * An identity the channel has already → 409 ERR_CONTACT_EXISTS, unless the request repeats the
   * stored externalKey (a retry), which answers that contact with created false. Concurrent creates
   * of one identity create one contact (the unique key).
   */
  async createContact(req: Input): Promise<proto.tickets.CreateContactResponse> {
    const channelId = requireChannel(req.channelId);
    const ids = identitiesOf(req.number);
    const set = fieldsOf(req);
    const existing = await this.identities.find(req.tenantId, channelId, ids);
    if (!existing) {
      const now = new Date();
      const doc: ContactDoc = {
        _id: await this.repo.nextId('contact'),
        tenantId: req.tenantId,
        channelId,
        number: Object.values(ids)[0],
        email: '',
        name: set.name ?? fullName(set),
        ...(ids.bsuid && { bsuid: ids.bsuid }),
        ...(ids.parentBsuid && { parentBsuid: ids.parentBsuid }),
        ...(ids.lid && { lid: ids.lid }),
        ...set,
        createdAt: now,
        updatedAt: now,
      };
      if (await this.repo.contacts.insertContact(doc)) return { contact: toContactRecord(doc), created: true };
    }
    const stored = existing ?? (await this.identities.find(req.tenantId, channelId, ids));
    if (stored && set.externalKey && stored.externalKey === set.externalKey) return { contact: toContactRecord(stored), created: false };
    throw conflict('ERR_CONTACT_EXISTS', 'The channel has a contact with this identity already; change it with updateContact');
  }

  /** Sets the given fields of the channel's contact holding that identity; a new name shows on its tickets too. */
  async updateContact(req: Input): Promise<proto.tickets.ContactRecord> {
    const channelId = requireChannel(req.channelId);
    const set = fieldsOf(req);
    const contact = await this.identities.find(req.tenantId, channelId, identitiesOf(req.number));
    const updated = contact && (await this.repo.contacts.updateContactById(req.tenantId, contact._id, { ...set, updatedAt: new Date() }));
    if (!updated) throw notFound('contact', 'No contact with this identity on the channel');
    if (set.name !== undefined)
      await this.repo.tickets.copyContactToTickets(req.tenantId, updated._id, { name: ticketContactOf(updated).name });
    return toContactRecord(updated);
  }

  /** A contact of the tenant by id (a merged one answers the contact it went into); another tenant's → 404 ERR_CONTACT_NOT_FOUND. */
  async getContactById(req: proto.tickets.ContactByIdRequest__Output): Promise<proto.tickets.ContactRecord> {
    const stored = await this.repo.contacts.findContactById(req.tenantId, req.contactId);
    const contact = stored && (await this.identities.live(stored));
    if (!contact) throw notFound('contact');
    return toContactRecord(contact);
  }

  /** The contact's kanban column (a column of the tenant: 404 ERR_KANBAN_NOT_FOUND otherwise); absent clears it. */
  async setKanban(req: proto.tickets.SetContactKanbanRequest__Output): Promise<proto.tickets.ContactRecord> {
    if (req.kanbanId !== undefined) await this.catalog.requireOne('kanban', req.tenantId, req.kanbanId);
    const updated = await this.repo.contacts.updateContactById(req.tenantId, await this.liveId(req.tenantId, req.contactId), {
      kanbanId: req.kanbanId ?? null,
      updatedAt: new Date(),
    });
    if (!updated) throw notFound('contact');
    return toContactRecord(updated);
  }

  /**
   * Replaces the contact's wallet (the users who own it). Each id must be one of the tenant's users
   * (asked of tenants, their owner: 404 ERR_USER_NOT_FOUND) before anything is written.
   */
  async setWallet(req: proto.tickets.SetContactWalletRequest__Output): Promise<proto.tickets.ContactRecord> {
    const walletIds = [...new Set(req.userIds)];
    if (walletIds.length > MAX_WALLET || walletIds.some((id) => !(id > 0))) {
      throw validation('Invalid wallet', [{ field: 'walletIds', message: `at most ${MAX_WALLET} positive ids` }]);
    }
    await Promise.all(walletIds.map((userId) => this.users.requireUser(req.tenantId, userId)));
    const updated = await this.repo.contacts.updateContactById(req.tenantId, await this.liveId(req.tenantId, req.contactId), {
      walletIds,
      updatedAt: new Date(),
    });
    if (!updated) throw notFound('contact');
    return toContactRecord(updated);
  }

  /** The id of the contact a merged one went into (the id itself otherwise, or when there is no such contact). */
  private async liveId(tenantId: number, contactId: number): Promise<number> {
    const stored = await this.repo.contacts.findContactById(tenantId, contactId);
    return (stored?.mergedInto && (await this.identities.live(stored))?._id) || contactId;
  }

  async listContacts(req: proto.tickets.ListContactsRequest__Output): Promise<proto.tickets.ContactPage> {
    const page = Math.max(1, req.page || 1);
    if (req.tagId !== undefined) await this.catalog.requireTags(req.tenantId, [req.tagId]);
    const query = { tenantId: req.tenantId, search: req.search, tagId: req.tagId };
    const [contacts, count] = await Promise.all([
      this.repo.contacts.listContacts(query, (page - 1) * CONTACTS_PAGE_SIZE, CONTACTS_PAGE_SIZE),
      this.repo.contacts.countContacts(query),
    ]);
    return {
      contacts: contacts.map(toContactRecord),
      count,
      hasMore: page * CONTACTS_PAGE_SIZE < count,
      page,
      pageSize: CONTACTS_PAGE_SIZE,
    };
  }
}

function requireChannel(channelId: number): number {
  if (!(channelId > 0)) throw validation('Invalid contact', [{ field: 'channelId', message: 'is required' }]);
  return channelId;
}

/** The fields the request sets (trimmed), checked all at once. */
function fieldsOf(req: Input): Partial<Record<(typeof FIELDS)[number][1], string>> & Pick<ContactDoc, 'extraInfo'> {
  const issues = new Issues();
  const set: Partial<Record<(typeof FIELDS)[number][1], string>> & Pick<ContactDoc, 'extraInfo'> = {};
  if (req.hasExtraInfo) {
    const extra = req.extraInfo.map((e) => ({ name: e.name.trim(), value: e.value }));
    if (extra.length > MAX_EXTRA) issues.add('extraInfo', `at most ${MAX_EXTRA} fields`);
    extra.forEach((e, i) => {
      if (!e.name || e.name.length > 100) issues.add(`extraInfo[${i}].name`, 'must have 1 to 100 characters');
      if (e.value.length > 1000) issues.add(`extraInfo[${i}].value`, 'at most 1000 characters');
    });
    set.extraInfo = extra;
  }
  for (const [field, key, max] of FIELDS) {
    const value = req[field];
    if (value === undefined) continue;
    const text = value.trim();
    if (text.length > max) issues.add(field, `at most ${max} characters`);
    else if (field === 'email' && text && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(text)) issues.add(field, 'must be an e-mail address');
    else set[key] = field === 'email' ? text.toLowerCase() : text;
  }
  issues.throwIfAny('Invalid contact');
  return set;
}

const fullName = (set: { firstName?: string; lastName?: string }) => [set.firstName, set.lastName].filter(Boolean).join(' ');

export function toContactRecord(c: ContactDoc): proto.tickets.ContactRecord {
  return {
    id: c._id,
    tenantId: c.tenantId,
    channelId: c.channelId,
    number: c.number,
    name: c.name ?? '',
    email: c.email || c.emailAddress || '',
    firstName: c.firstName ?? '',
    lastName: c.lastName ?? '',
    businessName: c.businessName ?? '',
    externalKey: c.externalKey ?? '',
    tagIds: c.tagIds ?? [],
    ...(c.kanbanId ? { kanbanId: c.kanbanId } : {}),
    walletIds: c.walletIds ?? [],
    extraInfo: (c.extraInfo ?? []).map((e) => ({ name: e.name, value: e.value })),
    ...identityFields(c),
    createdAt: iso(c.createdAt),
    updatedAt: iso(c.updatedAt ?? c.createdAt),
  };
}
