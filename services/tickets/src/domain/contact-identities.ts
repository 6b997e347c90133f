import { conflict, contactIdentity, isBsuid, isLid, validation } from '@convo/kit';
import { isDuplicateKey } from '@convo/kit/mongo';
import { IDENTITY_FIELDS, type ContactDoc, type IdentityField } from '../db/contact.model';
import type { TicketContact } from '../db/models';
import type { TicketsDatabase } from '../db/repositories';

/** A contact's identities as a request or an inbound event gives them; any may be missing. */
export type Identities = Partial<Record<IdentityField, string>>;

/** What a message says of its sender besides identities. */
export interface Profile {
  /** The provider's profile name: given to a new contact only. */
  name?: string;
  /** The provider's username: kept as the latest. */
  username?: string;
}

/** How many times a resolution starts over after losing a race (a contact created or merged meanwhile). */
const ROUNDS = 4;
/** A chain of merges (a into b, b into c) is followed this far. */
const MERGE_HOPS = 5;

/**
 * A contact field's value (`number` of the API: createTicket, showcontact, showticket…) as an
 * identity, told apart by form: a BSUID, a parent BSUID, a LID or a number (a phone's digits, or a
 * numeric platform user id). With `providerIds`, as OpenForContact takes what providers send, a
 * platform user id of other characters is the number too, as stored before identities.
 */
export function identitiesOf(raw: string, providerIds = false): Identities {
  const text = raw.trim();
  const identity = contactIdentity(text);
  if (identity) return { [identity.kind]: identity.value };
  if (providerIds && /^[0-9A-Za-z_.:-]{1,128}$/.test(text)) return { number: text };
  throw validation('Invalid contact', [
    { field: 'number', message: 'must be an E.164 number, e.g. +5511987654321 (or a social platform user id), a BSUID or a LID' },
  ]);
}

/** The identities of OpenForContact: its `number` by form, and the fields that name the others. */
export function requestIdentities(req: { number: string; bsuid: string; parentBsuid: string; lid: string }): Identities {
  const ids: Identities = req.number ? identitiesOf(req.number, true) : {};
  const check = (value: string, ok: boolean, field: string) => {
    if (value && !ok) throw validation('Invalid contact', [{ field, message: 'is not of its form' }]);
  };
  check(req.bsuid, isBsuid(req.bsuid) && !req.bsuid.slice(3).startsWith('ENT.'), 'bsuid');
  check(req.parentBsuid, isBsuid(req.parentBsuid), 'parent_bsuid');
  check(req.lid, isLid(req.lid), 'lid');
  if (req.bsuid) ids.bsuid = req.bsuid;
  if (req.parentBsuid) ids.parentBsuid = req.parentBsuid;
  if (req.lid) ids.lid = req.lid;
  // A LID's digits are never a phone number (what a provider's alternate field may carry by mistake).
  if (ids.lid && ids.number === lidDigits(ids.lid)) delete ids.number;
  return ids;
}

const lidDigits = (lid: string) => lid.slice(0, lid.indexOf('@'));

/**
 * Whether the contact's key is a phone (or platform user id): not a BSUID or LID standing in for
 * one, not a merged contact's released key, and not a LID's digits taken for a number (what
 * inbound engine messages stored before identities existed).
 */
export function hasPhone(c: Pick<ContactDoc, 'number' | 'lid'>): boolean {
  const n = c.number;
  return !!n && !isBsuid(n) && !isLid(n) && !n.startsWith('merged:') && !(c.lid && lidDigits(c.lid) === n);
}

/** The contact's copy on its tickets. */
export function ticketContactOf(c: ContactDoc): Omit<TicketContact, 'lastInboundAt'> {
  return {
    number: c.number,
    name: c.name,
    email: c.email,
    ...(c.bsuid && { bsuid: c.bsuid }),
    ...(c.parentBsuid && { parentBsuid: c.parentBsuid }),
    ...(c.lid && { lid: c.lid }),
    ...(c.username && { username: c.username }),
  };
}

/** The contact already holds every given identity (so nothing is to link). */
const holdsAll = (c: ContactDoc, ids: Identities) => IDENTITY_FIELDS.every((f) => !ids[f] || c[f] === ids[f]);

/**
 * One person, one contact per channel, whatever the provider calls them (docs/decisions.md,
 * "Contact identity"). A contact holds any of a phone (its `number`), a BSUID, a parent BSUID and a
 * LID; every lookup of an identity reads the channel's contacts holding it. What an event carries
 * together is linked to one contact; contacts found holding identities of one event are merged
 * into the oldest (lowest id): its tickets keep their ids, the others' move to it.
 *
 * Concurrency, without transactions (FerretDB has none): the number is unique on its channel (the
 * contacts' unique index), so two creators of one phone make one contact; the other identities are
 * checked again after every write that gives a contact one (write, then read), and any lookup that
 * finds two holders merges them, so two contacts created at once for one BSUID or LID become one
 * at the latest when the next event names it. A merge is marked first (mergedInto) and each of its
 * steps is idempotent: a merge cut short is finished by the next lookup that finds the merged
 * contact.
 */
export class ContactIdentities {
  constructor(private readonly repo: TicketsDatabase) {}

  /**
   * The channel's contact of these identities, created, linked or merged as needed. The common
   * case, a known contact holding everything given, costs one read; linking a new identity to it a
   * write, the update of its tickets' copies and one read of the identity's other holders.
   */
  async resolve(tenantId: number, channelId: number, ids: Identities, profile: Profile = {}): Promise<ContactDoc> {
    const given = IDENTITY_FIELDS.filter((f) => ids[f]);
    if (!given.length) throw validation('Invalid contact', [{ field: 'number', message: 'is required (or another identity)' }]);
    for (let round = 0; round < ROUNDS; round++) {
      const found = new Map<number, ContactDoc>();
      for (const field of given) {
        for (const doc of await this.repo.contacts.findByIdentity(tenantId, channelId, field, ids[field]!)) found.set(doc._id, doc);
        const only = found.size === 1 ? [...found.values()][0] : undefined;
        if (field !== given[0] || !only || only.mergedInto) continue;
        if (holdsAll(only, ids)) return this.keepUsername(only, profile.username);
        // Found by its first identity and lacking another: linked at once, the other identities'
        // holders found by settle's read after the write (one read fewer than looking first).
        break;
      }
      // A contact that an engine message stored with its LID's digits as the number, before
      // identities: found by those digits, and repaired by the link below.
      if (ids.lid && !found.size) for (const doc of await this.misfiled(tenantId, channelId, ids.lid)) found.set(doc._id, doc);
      const contact = found.size
        ? await this.unite(tenantId, [...found.values()], ids, profile)
        : await this.create(tenantId, channelId, ids, profile);
      if (contact) return contact;
    }
    throw conflict('ERR_CONTACT_BUSY', "The contact's identities are being linked by another request; retry");
  }

  /**
   * A contact found by an identity a caller names (showcontact, updateContact, a pinned ticket):
   * the live one, following a merge; null when there is none. Nothing is created or linked.
   */
  async find(tenantId: number, channelId: number, ids: Identities): Promise<ContactDoc | null> {
    for (const field of IDENTITY_FIELDS.filter((f) => ids[f])) {
      const docs = await this.repo.contacts.findByIdentity(tenantId, channelId, field, ids[field]!);
      if (docs.length) return this.live(docs.sort((a, b) => a._id - b._id)[0]);
    }
    return null;
  }

  /** The contact a merged one went into (itself when not merged), its merge finished; null when gone. */
  async live(doc: ContactDoc): Promise<ContactDoc | null> {
    let current: ContactDoc | null = doc;
    for (let hop = 0; current?.mergedInto && hop < MERGE_HOPS; hop++) {
      const survivor = await this.repo.contacts.findContactById(current.tenantId, current.mergedInto);
      if (survivor && !survivor.mergedInto) await this.absorb(survivor, current);
      current = survivor;
    }
    return current;
  }

  /** A new contact keyed by its phone, else by its first other identity; null when another caller created it first. */
  private async create(tenantId: number, channelId: number, ids: Identities, profile: Profile): Promise<ContactDoc | null> {
    const key = ids.number ?? ids.bsuid ?? ids.parentBsuid ?? ids.lid!;
    const doc: ContactDoc = {
      _id: await this.repo.nextId('contact'),
      tenantId,
      channelId,
      number: key,
      email: '',
      name: profile.name ?? '',
      ...(ids.bsuid && { bsuid: ids.bsuid }),
      ...(ids.parentBsuid && { parentBsuid: ids.parentBsuid }),
      ...(ids.lid && { lid: ids.lid }),
      ...(profile.username && { username: profile.username }),
      createdAt: new Date(),
    };
    if (!(await this.repo.contacts.insertContact(doc))) return null;
    return this.settle(doc, ids);
  }

  /**
   * Contacts found for one event's identities become one: the oldest live one survives, takes the
   * others, then every identity given. Null when a race calls for another round.
   */
  private async unite(tenantId: number, found: ContactDoc[], ids: Identities, profile: Profile): Promise<ContactDoc | null> {
    const live = new Map<number, ContactDoc>();
    for (const doc of found) {
      const current = await this.live(doc);
      if (current) live.set(current._id, current);
    }
    if (!live.size) return null;
    const [survivor, ...others] = [...live.values()].sort((a, b) => a._id - b._id);
    let contact: ContactDoc | null = survivor;
    for (const other of others) {
      contact = contact && (await this.merge(contact, other));
    }
    return contact && this.link(contact, ids, profile);
  }

  /** Merges `absorbed` into `survivor`: marked first, then absorbed (see absorb); the survivor after. */
  private async merge(survivor: ContactDoc, absorbed: ContactDoc): Promise<ContactDoc | null> {
    await this.repo.contacts.markMerged(absorbed, survivor._id);
    return this.absorb(survivor, { ...absorbed, mergedInto: survivor._id });
  }

  /**
   * What a merge does after marking, each step repeatable: the absorbed contact's tickets move to
   * the survivor, its tags and window join the survivor's, the survivor takes the identities it
   * lacks, then the absorbed contact releases its own (its phone kept aside as formerNumber) and the
   * survivor takes the phone when it has none (a number is unique: only once released). Null when
   * the survivor was merged meanwhile or the phone went elsewhere (the caller starts over).
   */
  private async absorb(survivor: ContactDoc, absorbed: ContactDoc): Promise<ContactDoc | null> {
    await this.repo.tickets.copyContactToTickets(survivor.tenantId, survivor._id, ticketContactOf(survivor), absorbed._id);
    await this.repo.contacts.absorbActivity(survivor, absorbed);
    const taken: Partial<ContactDoc> = {};
    for (const field of ['bsuid', 'parentBsuid', 'lid', 'username', 'name'] as const) {
      if (absorbed[field] && !survivor[field]) taken[field] = absorbed[field];
    }
    let current: ContactDoc | null = Object.keys(taken).length ? await this.update(survivor, taken) : survivor;
    const phone = absorbed.formerNumber ?? (hasPhone(absorbed) ? absorbed.number : undefined);
    if (!absorbed.number.startsWith('merged:')) await this.repo.contacts.releaseIdentities(absorbed, phone);
    if (current && phone && !hasPhone(current)) current = await this.update(current, { number: phone });
    return current;
  }

  /** Gives the contact every identity given that it lacks (a new one replaces an old one of its kind), then settles. */
  private async link(contact: ContactDoc, ids: Identities, profile: Profile): Promise<ContactDoc | null> {
    const set: Partial<ContactDoc> = {};
    for (const field of ['bsuid', 'parentBsuid', 'lid'] as const) {
      if (ids[field] && contact[field] !== ids[field]) set[field] = ids[field];
    }
    const lid = set.lid ?? contact.lid;
    const phoneKnown = hasPhone({ number: contact.number, lid });
    if (ids.number && !phoneKnown) set.number = ids.number;
    // Keyed by its LID's digits (an engine contact stored before identities) and no phone given:
    // keyed by the LID itself from now on.
    else if (!phoneKnown && lid && contact.number === lidDigits(lid)) set.number = lid;
    if (profile.username && contact.username !== profile.username) set.username = profile.username;
    if (!Object.keys(set).length) return contact;
    const updated = await this.update(contact, set);
    return updated && this.settle(updated, ids);
  }

  /** Sets fields on a live contact and on its tickets' copies; null when a race calls for another round. */
  private async update(contact: ContactDoc, set: Partial<ContactDoc>): Promise<ContactDoc | null> {
    let updated: ContactDoc | null;
    try {
      updated = await this.repo.contacts.setContactFields(contact, set);
    } catch (err) {
      // Its new number is another contact's: the next round finds both and merges them.
      if (isDuplicateKey(err)) return null;
      throw err;
    }
    if (!updated) return null;
    await this.repo.tickets.copyContactToTickets(updated.tenantId, updated._id, ticketContactOf(updated));
    return updated;
  }

  /**
   * After a write gave the contact identities other than its number: any other contact of the
   * channel holding one of them (created at the same moment by another request) is merged now.
   */
  private async settle(contact: ContactDoc, ids: Identities): Promise<ContactDoc | null> {
    for (const field of ['bsuid', 'parentBsuid', 'lid'] as const) {
      if (!ids[field]) continue;
      const holders = await this.repo.contacts.findByIdentity(contact.tenantId, contact.channelId, field, ids[field]);
      // A LID's other holder may be a contact stored with its digits as the number before identities
      // (the same person's LID-only messages, while its phone's went to this contact).
      if (field === 'lid') holders.push(...(await this.misfiled(contact.tenantId, contact.channelId, ids.lid!)));
      const others = holders.filter((d) => d._id !== contact._id && !d.mergedInto);
      if (others.length) return this.unite(contact.tenantId, [contact, ...others], ids, {});
    }
    return contact;
  }

  /** Contacts keyed by a LID's digits and holding no LID: stored so by engine messages before identities. */
  private async misfiled(tenantId: number, channelId: number, lid: string): Promise<ContactDoc[]> {
    return (await this.repo.contacts.findByIdentity(tenantId, channelId, 'number', lidDigits(lid))).filter((d) => !d.lid);
  }

  /** A known contact's username, kept as the latest the provider gave (display only). */
  private async keepUsername(contact: ContactDoc, username: string | undefined): Promise<ContactDoc> {
    if (!username || contact.username === username) return contact;
    return (await this.update(contact, { username })) ?? contact;
  }
}
