import { isDuplicateKey, nextSequence } from '@convo/kit/mongo';
import type { Connection, mongo, QueryFilter, UpdateQuery } from 'mongoose';
import { KeyedQueue } from './keyed-queue';
import { cellMatcher, cellOf, countMoves, eraKey, eraOf, eraOfKey, parseCell, slotDocId, slotOf, SLOT_MS, SLOTS_PER_ERA, sumCells, type Cells, type Listed, type TicketCountDoc, type TicketSlotDoc } from './listing';
import {
  registerModels,
  type CatalogDoc,
  type ContactDoc,
  type EvaluationClaimDoc,
  type Models,
  type NoteDoc,
  type NoteKeyDoc,
  type OpenClaimDoc,
  type PauseDoc,
  type TicketDoc,
  type TicketKeyDoc,
  type TicketRowDoc,
  type TicketStatus,
} from './models';

/** The filters of listTickets; every one is optional but the tenant. */
export interface TicketQuery {
  tenantId: number;
  status?: TicketStatus;
  /** Plain text (not a pattern) matched case-insensitively in the contact's name, number and e-mail. */
  search?: string;
  queueIds?: number[];
  channelIds?: number[];
  /** Dashboard filters: read from the tickets themselves (rows do not carry tags or users). */
  tagId?: number;
  userId?: number;
}

/** What the dashboard counts tickets by. */
export type TicketGrouping = 'status' | 'queueId' | 'channelId';

export type CatalogKind = 'tag' | 'queue' | 'kanban' | 'reason';
/** Tickets cleared of a deleted kanban column or reason at once. */
const CLEAR_BATCH = 16;

/** listContacts' filters; every one is optional but the tenant. */
export interface ContactQuery {
  tenantId: number;
  search?: string;
  tagId?: number;
}

/** Lists of contacts, tags and queues: by name, the id breaking ties (served by their indexes). */
const BY_NAME = { name: 1, _id: 1 } as const;

/** Newest activity first; the id breaks ties, so a page boundary never repeats or skips a ticket. */
const LIST_ORDER = { updatedAt: -1, _id: -1 } as const;

/** The `ticket_counts` document that records the listing's layout (no tenant has id 0). */
const LAYOUT_ID = 0;
const LAYOUT = { slotMs: SLOT_MS, slotsPerEra: SLOTS_PER_ERA, rows: 'tickets' };

/** What a row is counted under, as read back from the database (a row of an older layout has no slot). */
const listedOf = (r: Pick<TicketRowDoc, 'tenantId' | 'slot' | 'status' | 'queueId' | 'channelId'> | null): Listed | null =>
  r && typeof r.slot === 'number' ? { tenantId: r.tenantId, slot: r.slot, status: r.status, queueId: r.queueId ?? null, channelId: r.channelId } : null;

/** User text becomes a literal pattern: `a.b*` matches "a.b*", never "axbbb". */
export const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export class TicketsRepository {
  readonly models: Models;
  private readonly perTicket = new KeyedQueue();
  /**
   * The listing counters of a tenant change one move at a time: FerretDB applies `$inc` as read,
   * add, write back, so two concurrent moves could lose one. MongoDB's `$inc` is atomic, so there
   * any number of tickets processes may write; on the embedded database this relies on the one
   * tickets process of the mesh (as the per-ticket queue above does). With more replicas there
   * (MESH_REPLICAS), a tenant's listing counts may lose a move made at the same moment by another
   * replica (dev and tests only; no write fails: see upsertOnce).
   */
  private readonly perTenantCounts = new KeyedQueue();

  constructor(private readonly conn: Connection) {
    this.models = registerModels(conn);
  }

  /** The counters through the driver: their `$inc` names fields after data (eras, slots, cells). */
  private get tenantCounts() {
    return this.models.TicketCount.collection as unknown as mongo.Collection<TicketCountDoc>;
  }

  private get slotCounts() {
    return this.models.TicketSlot.collection as unknown as mongo.Collection<TicketSlotDoc>;
  }

  async init(): Promise<void> {
    await Promise.all(Object.values(this.models).map((m) => m.createIndexes()));
    await this.backfillListing();
  }

  /**
   * Tickets written before their listing rows existed (an older version, or data loaded from
   * outside), or rows and counts of another layout, get rebuilt at start: two cheap counts and one
   * lookup decide, and a rebuild (reading every ticket once) runs only when they disagree.
   */
  private async backfillListing(): Promise<void> {
    const [tickets, rows, marker] = await Promise.all([
      this.models.Ticket.estimatedDocumentCount().exec(),
      this.models.TicketRow.estimatedDocumentCount().exec(),
      this.models.TicketCount.findById(LAYOUT_ID).lean<TicketCountDoc>().exec(),
    ]);
    const sameLayout = JSON.stringify(marker?.layout) === JSON.stringify(LAYOUT);
    if (tickets === rows && (sameLayout || tickets === 0)) {
      if (!sameLayout) await this.writeLayout();
      return;
    }
    await this.rebuildListing();
  }

  private async writeLayout(): Promise<void> {
    // Two replicas starting at once on an empty database both write it.
    await upsertOnce(() => this.tenantCounts.replaceOne({ _id: LAYOUT_ID }, { layout: LAYOUT }, { upsert: true }));
  }

  /**
   * Every ticket's row written anew, and the counts computed from them (at start, before serving):
   * rows, slots and counts are dropped and inserted in batches, which FerretDB does far faster than
   * replacing each row, and rows left by deleted tickets go too.
   */
  private async rebuildListing(): Promise<void> {
    await this.tenantCounts.deleteOne({ _id: LAYOUT_ID });
    await Promise.all([this.models.TicketRow.deleteMany({}).exec(), this.slotCounts.deleteMany({}), this.tenantCounts.deleteMany({})]);
    const tenants = new Map<number, Record<string, Cells>>();
    const slots = new Map<string, TicketSlotDoc>();
    const batch: TicketRowDoc[] = [];
    const flush = async () => {
      if (!batch.length) return;
      await this.models.TicketRow.collection.insertMany(batch.splice(0) as never[], { ordered: false }).catch((err: unknown) => {
        // A row another replica wrote meanwhile (it serves while this one starts, and a ticket it
        // had just inserted made the counts differ) is the same row: only other errors count.
        const errors = (err as { writeErrors?: Array<{ code?: number }> }).writeErrors;
        if (!isDuplicateKey(err) || (errors && errors.some((e) => e.code !== 11000))) throw err;
      });
    };
    for await (const t of this.models.Ticket.find({}).lean<TicketDoc>().cursor()) {
      const row = rowOf(t);
      batch.push(row);
      const cell = cellOf(row);
      const era = eraKey(eraOf(row.slot));
      const eras = tenants.get(row.tenantId) ?? {};
      eras[era] = { ...eras[era], [cell]: (eras[era]?.[cell] ?? 0) + 1 };
      tenants.set(row.tenantId, eras);
      const id = slotDocId(row.tenantId, row.slot);
      const slot = slots.get(id) ?? { _id: id, tenantId: row.tenantId, era: eraOf(row.slot), slot: row.slot, cells: {} };
      slot.cells[cell] = (slot.cells[cell] ?? 0) + 1;
      slots.set(id, slot);
      if (batch.length >= 1_000) await flush();
    }
    await flush();
    const docs = [...slots.values()];
    for (let i = 0; i < docs.length; i += 1_000) await this.slotCounts.insertMany(docs.slice(i, i + 1_000));
    const counts = [...tenants].map(([tenantId, eras]) => ({ _id: tenantId, eras }));
    for (let i = 0; i < counts.length; i += 1_000) await this.tenantCounts.insertMany(counts.slice(i, i + 1_000));
    // Last: a rebuild cut short runs again at the next start.
    await this.writeLayout();
  }

  /**
   * The listing row of a ticket, written after each write of the ticket (by `_id` alone), and the
   * counts moved when the row changed slot or cell. Callers hold the ticket's turn (perTicket).
   */
  private async writeRow(ticket: TicketDoc): Promise<void> {
    const row = rowOf(ticket);
    // The whole former row comes back: FerretDB's findAndModify takes no projection.
    const before = await this.models.TicketRow.findOneAndReplace({ _id: ticket._id }, row, { upsert: true, returnDocument: 'before' })
      .lean<TicketRowDoc>()
      .exec();
    await this.moveCounts(listedOf(before), listedOf(row));
  }

  /** Applies a row's move to the slot and tenant counters (nothing when it stayed in its slot and cell). */
  private async moveCounts(before: Listed | null, after: Listed | null): Promise<void> {
    const moves = countMoves(before, after);
    if (!moves.slots.length && !moves.tenants.length) return;
    const tenantId = (after ?? before)!.tenantId;
    await this.perTenantCounts.run(tenantId, async () => {
      await Promise.all([
        ...moves.slots.map((s) =>
          upsertOnce(() =>
            this.slotCounts.updateOne(
              { _id: s.id },
              { $inc: s.inc, $setOnInsert: { tenantId: s.tenantId, era: eraOf(s.slot), slot: s.slot } },
              { upsert: true },
            ),
          ),
        ),
        ...moves.tenants.map((t) => upsertOnce(() => this.tenantCounts.updateOne({ _id: t.tenantId }, { $inc: t.inc }, { upsert: true }))),
      ]);
    });
  }

  nextId(kind: 'ticket' | 'contact' | 'note' | 'pause' | CatalogKind): Promise<number> {
    return nextSequence(this.conn, kind);
  }

  // ---- contacts --------------------------------------------------------------------------------

  /**
   * Finds the contact of a channel, creating it once even under concurrent callers; `name` (the
   * provider's profile name) is given to a new contact only.
   */
  async findOrCreateContact(tenantId: number, channelId: number, number: string, email: string, name = ''): Promise<ContactDoc> {
    const filter = { tenantId, channelId, number, email };
    const existing = await this.models.Contact.findOne(filter).lean<ContactDoc>().exec();
    if (existing) return existing;
    const doc: ContactDoc = { _id: await this.nextId('contact'), ...filter, name, createdAt: new Date() };
    try {
      await this.models.Contact.create(doc);
      return doc;
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
      return (await this.models.Contact.findOne(filter).lean<ContactDoc>().exec())!;
    }
  }

  /** The contact wrote at `at`: kept as its lastInboundAt unless a later message is there already. */
  async recordContactInbound(contact: ContactDoc, at: Date): Promise<ContactDoc> {
    if (contact.lastInboundAt && contact.lastInboundAt >= at) return contact;
    await this.models.Contact.updateOne({ _id: contact._id, tenantId: contact.tenantId }, { $max: { lastInboundAt: at } }).exec();
    return { ...contact, lastInboundAt: at };
  }

  /** A contact of a channel by its number (the unique index's equality fields). */
  findContactByNumber(tenantId: number, channelId: number, number: string) {
    return this.models.Contact.findOne({ tenantId, channelId, number, email: '' }).lean<ContactDoc>().exec();
  }

  /** Inserts a new contact; false when the channel has that number already (unique index). */
  insertContact(doc: ContactDoc): Promise<boolean> {
    return this.claim(this.models.Contact.create(doc));
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

  /** The contact's name as its tickets show it (listTickets searches it there). */
  async renameContactOnTickets(tenantId: number, contactId: number, name: string): Promise<void> {
    await this.models.Ticket.updateMany({ tenantId, contactId }, { $set: { 'contact.name': name } }).exec();
    await this.models.TicketRow.updateMany({ tenantId, contactId }, { $set: { 'contact.name': name } }).exec();
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

  // ---- tickets ---------------------------------------------------------------------------------

  findTicket(tenantId: number, id: number) {
    return this.models.Ticket.findOne({ _id: id, tenantId }).lean<TicketDoc>().exec();
  }

  findTicketById(id: number) {
    return this.models.Ticket.findById(id).lean<TicketDoc>().exec();
  }

  async insertTicket(ticket: TicketDoc): Promise<void> {
    // The row copies the ticket as stored, its schema's defaults included.
    const stored = (await this.models.Ticket.create(ticket)).toObject<TicketDoc>();
    await this.perTicket.run(ticket._id, () => this.writeRow(stored));
  }

  deleteTicket(tenantId: number, id: number): Promise<boolean> {
    return this.perTicket.run(id, async () => {
      const deleted = (await this.models.Ticket.deleteOne({ _id: id, tenantId }).exec()).deletedCount > 0;
      if (!deleted) return false;
      const row = await this.models.TicketRow.findOneAndDelete({ _id: id }).lean<TicketRowDoc>().exec();
      await this.moveCounts(listedOf(row), null);
      return true;
    });
  }

  updateTicket(tenantId: number, id: number, update: UpdateQuery<TicketDoc>) {
    return this.updateTicketWhere(tenantId, id, {}, update);
  }

  /** Applies the update only while `condition` holds; null when the ticket is absent or the condition fails. */
  updateTicketWhere(tenantId: number, id: number, condition: QueryFilter<TicketDoc>, update: UpdateQuery<TicketDoc>) {
    return this.perTicket.run(id, async () => {
      const ticket = await this.models.Ticket.findOneAndUpdate({ ...condition, _id: id, tenantId }, update, { returnDocument: 'after' })
        .lean<TicketDoc>()
        .exec();
      if (ticket) await this.writeRow(ticket);
      return ticket;
    });
  }

  /**
   * A page of the tenant's tickets (newest activity first, the id breaking ties) and the number
   * matching the filter. Without a free-text search or a tag or user filter, the counters say which
   * slots hold the page and how many match (listing.ts): the page reads the tenant's counts, one
   * era's slot counts and the rows of the few slots it spans; rows are copies of their tickets, so
   * they are the answer.
   */
  async pageTickets(query: TicketQuery, skip: number, limit: number): Promise<{ tickets: TicketDoc[]; count: number }> {
    if (query.tagId !== undefined || query.userId !== undefined) {
      // The dashboard's tag and user filters: rows carry neither, so the tickets themselves (their indexes on MongoDB).
      const filter = ticketFilter(query) as QueryFilter<TicketDoc>;
      const [tickets, count] = await Promise.all([
        this.models.Ticket.find(filter).sort(LIST_ORDER).skip(skip).limit(limit).lean<TicketDoc[]>().exec(),
        this.models.Ticket.countDocuments(filter).exec(),
      ]);
      return { tickets, count };
    }
    if (query.search?.trim()) {
      // Text in names, numbers and e-mails is no equality: on FerretDB this reads every row of the
      // tenant that the status matches (its cost grows with the tenant); on MongoDB the index serves
      // the order and the tenant's rows are filtered along it.
      const filter = ticketFilter(query);
      const [rows, count] = await Promise.all([
        this.models.TicketRow.find(filter).sort(LIST_ORDER).skip(skip).limit(limit).lean<TicketRowDoc[]>().exec(),
        this.models.TicketRow.countDocuments(filter).exec(),
      ]);
      return { tickets: rows.map(ticketOfRow), count };
    }
    return this.pageFromSlots(query, skip, limit);
  }

  /**
   * Three reads, each in parallel where it has several: the tenant's counts; the slot counts of the
   * eras the page spans (known from the era counts); the rows of the slots it spans (known from
   * the slot counts).
   */
  private async pageFromSlots(query: TicketQuery, skip: number, limit: number): Promise<{ tickets: TicketDoc[]; count: number }> {
    const { tenantId } = query;
    const match = cellMatcher(query);
    const counts = await this.models.TicketCount.findById(tenantId).lean<TicketCountDoc>().exec();
    const eras = Object.entries(counts?.eras ?? {}).map(([key, cells]) => ({ at: eraOfKey(key), n: sumCells(cells, match) }));
    const count = eras.reduce((sum, e) => sum + e.n, 0);
    const eraSpan = spanOf(eras, skip, limit);
    const slotDocs = await Promise.all(eraSpan.units.map(({ at }) => this.models.TicketSlot.find({ tenantId, era: at }).lean<TicketSlotDoc[]>().exec()));
    const slotSpan = spanOf(
      slotDocs.flat().map((s) => ({ at: s.slot, n: sumCells(s.cells, match) })),
      eraSpan.skip,
      limit,
    );
    const rows = await Promise.all(
      slotSpan.units.map(async ({ at }) => {
        const filter: QueryFilter<TicketRowDoc> = { tenantId, slot: at };
        if (query.status) filter.status = query.status;
        return (await this.models.TicketRow.find(filter).lean<TicketRowDoc[]>().exec()).filter((r) => match(cellOf(r))).sort(byListOrder);
      }),
    );
    return { tickets: rows.flat().slice(slotSpan.skip, slotSpan.skip + limit).map(ticketOfRow), count };
  }

  /** A tenant's tickets counted by status, queue or channel: its counts document, read once. */
  async countTicketsBy(tenantId: number, field: TicketGrouping): Promise<Array<{ key: string | number | null; count: number }>> {
    const counts = await this.models.TicketCount.findById(tenantId).lean<TicketCountDoc>().exec();
    const groups = new Map<string | number | null, number>();
    for (const cells of Object.values(counts?.eras ?? {})) {
      for (const [cell, n] of Object.entries(cells)) {
        if (n <= 0) continue;
        const key = parseCell(cell)[field];
        groups.set(key, (groups.get(key) ?? 0) + n);
      }
    }
    return [...groups].map(([key, count]) => ({ key, count })).sort((a, b) => b.count - a.count || String(a.key).localeCompare(String(b.key)));
  }

  /** The most recently active open or pending ticket of a contact number, on any channel of the tenant. */
  findCurrentTicketOfNumber(tenantId: number, number: string) {
    return this.models.Ticket.findOne({ tenantId, 'contact.number': number, status: { $in: ['open', 'pending'] } })
      .sort({ updatedAt: -1, _id: -1 })
      .lean<TicketDoc>()
      .exec();
  }

  /** The most recently active open or pending ticket of one contact (so of one channel). */
  findCurrentTicketOfContact(tenantId: number, contactId: number) {
    return this.models.Ticket.findOne({ tenantId, contactId, status: { $in: ['open', 'pending'] } })
      .sort({ updatedAt: -1, _id: -1 })
      .lean<TicketDoc>()
      .exec();
  }

  /** The id of the contact's newest ticket, whatever its status; null when it has none. */
  async lastTicketIdOfContact(tenantId: number, contactId: number): Promise<number | null> {
    const last = await this.models.Ticket.findOne({ tenantId, contactId }, { _id: 1 }).sort({ _id: -1 }).lean<Pick<TicketDoc, '_id'>>().exec();
    return last?._id ?? null;
  }

  /** Every ticket of a contact number in the tenant, newest first. */
  listTicketsOfNumber(tenantId: number, number: string, limit: number) {
    return this.models.Ticket.find({ tenantId, 'contact.number': number })
      .sort({ createdAt: -1, _id: -1 })
      .limit(limit)
      .lean<TicketDoc[]>()
      .exec();
  }

  // ---- createTicket's externalKey ------------------------------------------------------------

  /** True when the key was claimed now; false when it is already held. */
  async claimKey(id: string, ticketId: number): Promise<boolean> {
    return this.claim(this.models.TicketKey.create({ _id: id, ticketId, createdAt: new Date() }));
  }

  findKey(id: string) {
    return this.models.TicketKey.findById(id).lean<TicketKeyDoc>().exec();
  }

  /** Takes over a key whose window has passed; only one concurrent caller wins. */
  async takeOverExpiredKey(id: string, olderThan: Date, ticketId: number): Promise<boolean> {
    const res = await this.models.TicketKey.findOneAndUpdate(
      { _id: id, createdAt: { $lt: olderThan } },
      { $set: { ticketId, createdAt: new Date() } },
    ).exec();
    return res !== null;
  }

  async releaseKey(id: string, ticketId: number): Promise<void> {
    await this.models.TicketKey.deleteOne({ _id: id, ticketId }).exec();
  }

  // ---- OpenForContact's claims ---------------------------------------------------------------

  /** True when this caller may open the contact's next ticket (see OpenClaimDoc). */
  claimOpen(id: string, ticketId: number): Promise<boolean> {
    return this.claim(this.models.OpenClaim.create({ _id: id, ticketId, createdAt: new Date() }));
  }

  findOpenClaim(id: string) {
    return this.models.OpenClaim.findById(id).lean<OpenClaimDoc>().exec();
  }

  /** Takes over a claim whose holder never inserted its ticket (it crashed); one caller wins. */
  async takeOverStaleOpenClaim(id: string, olderThan: Date, ticketId: number): Promise<boolean> {
    const res = await this.models.OpenClaim.findOneAndUpdate(
      { _id: id, createdAt: { $lt: olderThan } },
      { $set: { ticketId, createdAt: new Date() } },
    ).exec();
    return res !== null;
  }

  async releaseOpenClaim(id: string, ticketId: number): Promise<void> {
    await this.models.OpenClaim.deleteOne({ _id: id, ticketId }).exec();
  }

  /** Frees the claim that opened this ticket (a discarded ticket), so the contact's next open is not held up. */
  async releaseOpenClaimsOf(ticketId: number): Promise<void> {
    await this.models.OpenClaim.deleteMany({ ticketId }).exec();
  }

  // ---- tags and queues -------------------------------------------------------------------------

  private catalog(kind: CatalogKind) {
    return { tag: this.models.Tag, queue: this.models.Queue, kanban: this.models.Kanban, reason: this.models.Reason }[kind];
  }

  /** Changes a tenant's entity; null when it is not the tenant's. A name taken by another throws the duplicate-key error. */
  updateCatalog(kind: CatalogKind, tenantId: number, id: number, set: Partial<CatalogDoc>) {
    return this.catalog(kind).findOneAndUpdate({ _id: id, tenantId }, { $set: set }, { returnDocument: 'after' }).lean<CatalogDoc>().exec();
  }

  /**
   * Deletes a tenant's kanban column or reason, then clears it from the tickets (and their listing
   * rows) and, for a column, the contacts that carried it. Null when it is not the tenant's.
   */
  async deleteCatalog(kind: 'kanban' | 'reason', tenantId: number, id: number): Promise<{ ticketsCleared: number } | null> {
    const deleted = (await this.catalog(kind).deleteOne({ _id: id, tenantId }).exec()).deletedCount > 0;
    if (!deleted) return null;
    const field = kind === 'kanban' ? 'kanbanId' : 'reasonId';
    const filter = { tenantId, [field]: id };
    // Ticket by ticket through the per-ticket queue, so that its listing row is written after any
    // write of the ticket already under way (a bulk update of the rows could be overtaken by one).
    const carrying = await this.models.Ticket.find(filter, { _id: 1 }).lean<Array<{ _id: number }>>().exec();
    let ticketsCleared = 0;
    for (let i = 0; i < carrying.length; i += CLEAR_BATCH) {
      const cleared = await Promise.all(
        carrying.slice(i, i + CLEAR_BATCH).map(({ _id }) => this.updateTicketWhere(tenantId, _id, { [field]: id }, { $set: { [field]: null } })),
      );
      ticketsCleared += cleared.filter(Boolean).length;
    }
    if (kind === 'kanban') await this.models.Contact.updateMany(filter, { $set: { kanbanId: null } }).exec();
    return { ticketsCleared };
  }

  /** Creates the named entity, or answers the one the tenant already has under that name. */
  async findOrCreateCatalog(kind: CatalogKind, tenantId: number, name: string): Promise<CatalogDoc> {
    const model = this.catalog(kind);
    const existing = await model.findOne({ tenantId, name }).lean<CatalogDoc>().exec();
    if (existing) return existing;
    const doc: CatalogDoc = { _id: await this.nextId(kind), tenantId, name, createdAt: new Date() };
    try {
      await model.create(doc);
      return doc;
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
      return (await model.findOne({ tenantId, name }).lean<CatalogDoc>().exec())!;
    }
  }

  findCatalogIds(kind: CatalogKind, tenantId: number, ids: number[]) {
    return this.catalog(kind).find({ tenantId, _id: { $in: ids } }, { _id: 1 }).lean<Array<Pick<CatalogDoc, '_id'>>>().exec();
  }

  listCatalog(kind: CatalogKind, tenantId: number) {
    return this.catalog(kind).find({ tenantId }).sort({ _id: 1 }).lean<CatalogDoc[]>().exec();
  }

  /** One page of a tenant's tags or queues by name (the unique (tenantId, name) index serves it). */
  pageCatalog(kind: CatalogKind, tenantId: number, search: string, skip: number, limit: number) {
    // A name is unique in its tenant (a unique index): the name alone orders a page stably.
    return this.catalog(kind).find(nameFilter(tenantId, search)).sort({ name: 1 }).skip(skip).limit(limit).lean<CatalogDoc[]>().exec();
  }

  countCatalog(kind: CatalogKind, tenantId: number, search: string) {
    return this.catalog(kind).countDocuments(nameFilter(tenantId, search)).exec();
  }

  // ---- notes -----------------------------------------------------------------------------------

  async insertNote(note: NoteDoc): Promise<void> {
    await this.models.Note.create(note);
  }

  findNote(tenantId: number, id: number) {
    return this.models.Note.findOne({ _id: id, tenantId }).lean<NoteDoc>().exec();
  }

  updateNote(tenantId: number, id: number, notes: string) {
    return this.models.Note.findOneAndUpdate({ _id: id, tenantId }, { $set: { notes, updatedAt: new Date() } }, { returnDocument: 'after' })
      .lean<NoteDoc>()
      .exec();
  }

  /** A ticket's notes, oldest first (index: tenantId, ticketId, createdAt). */
  listNotes(tenantId: number, ticketId: number, skip: number, limit: number) {
    return this.models.Note.find({ tenantId, ticketId }).sort({ createdAt: 1, _id: 1 }).skip(skip).limit(limit).lean<NoteDoc[]>().exec();
  }

  countNotes(tenantId: number, ticketId: number) {
    return this.models.Note.countDocuments({ tenantId, ticketId }).exec();
  }

  // ---- the pause log ---------------------------------------------------------------------------

  async insertPause(doc: PauseDoc): Promise<void> {
    await this.models.Pause.create(doc);
  }

  /** Ends the ticket's open pause (if any) in the log. */
  async endPauses(tenantId: number, ticketId: number, endedBy: 'end' | 'close', at: Date): Promise<void> {
    await this.models.Pause.updateMany({ tenantId, ticketId, endedAt: null }, { $set: { endedAt: at, endedBy } }).exec();
  }

  listPauses(tenantId: number, ticketId: number, skip: number, limit: number) {
    return this.models.Pause.find({ tenantId, ticketId }).sort({ startedAt: 1, _id: 1 }).skip(skip).limit(limit).lean<PauseDoc[]>().exec();
  }

  countPauses(tenantId: number, ticketId: number) {
    return this.models.Pause.countDocuments({ tenantId, ticketId }).exec();
  }

  /** True when this caller holds the idFront now; a concurrent duplicate gets false. */
  claimNoteKey(id: string, noteId: number): Promise<boolean> {
    return this.claim(this.models.NoteKey.create({ _id: id, noteId, createdAt: new Date() }));
  }

  findNoteKey(id: string) {
    return this.models.NoteKey.findById(id).lean<NoteKeyDoc>().exec();
  }

  async releaseNoteKey(id: string, noteId: number): Promise<void> {
    await this.models.NoteKey.deleteOne({ _id: id, noteId }).exec();
  }

  // ---- sendEvaluation claims -----------------------------------------------------------------

  claimEvaluation(doc: EvaluationClaimDoc): Promise<boolean> {
    return this.claim(this.models.EvaluationClaim.create(doc));
  }

  /** Takes over a claim older than `olderThan` (an expired externalKey); of concurrent callers one wins. */
  async takeOverExpiredEvaluationClaim(doc: EvaluationClaimDoc, olderThan: Date): Promise<boolean> {
    const res = await this.models.EvaluationClaim.findOneAndUpdate(
      { _id: doc._id, createdAt: { $lt: olderThan } },
      { $set: { ticketId: doc.ticketId, claimId: doc.claimId, createdAt: doc.createdAt } },
    ).exec();
    return res !== null;
  }

  /** Frees every claim one sendEvaluation call took (its once-claim and its externalKey). */
  async releaseEvaluationClaims(claimId: string): Promise<void> {
    await this.models.EvaluationClaim.deleteMany({ claimId }).exec();
  }

  /** A unique `_id` insert is atomic on MongoDB and FerretDB alike, unlike a conditional update. */
  private async claim(insert: Promise<unknown>): Promise<boolean> {
    try {
      await insert;
      return true;
    } catch (err) {
      if (isDuplicateKey(err)) return false;
      throw err;
    }
  }
}

/**
 * The units (eras or slots, newest first) that hold the items `skip` to `skip + limit` of the
 * listing, given how many each holds, and how many of the first unit's items come before the page.
 */
function spanOf(all: Array<{ at: number; n: number }>, skip: number, limit: number) {
  const units = all.filter((u) => u.n > 0).sort((a, b) => b.at - a.at);
  let first = 0;
  let before = skip;
  while (first < units.length && before >= units[first].n) before -= units[first++].n;
  let last = first;
  for (let held = 0; last < units.length && held < before + limit; last++) held += units[last].n;
  return { units: units.slice(first, last), skip: before };
}

/** The listing order in memory: newest `updatedAt` first, then the higher id. */
const byListOrder = (a: Pick<TicketRowDoc, '_id' | 'updatedAt'>, b: Pick<TicketRowDoc, '_id' | 'updatedAt'>) =>
  b.updatedAt.getTime() - a.updatedAt.getTime() || b._id - a._id;

const rowOf = (t: TicketDoc): TicketRowDoc => ({ ...t, slot: slotOf(t.updatedAt) });

const ticketOfRow = ({ slot, ...ticket }: TicketRowDoc): TicketDoc => ticket;

/** Plain text, case-insensitive, anywhere in the name ('' matches every entity of the tenant). */
function nameFilter(tenantId: number, search: string): QueryFilter<CatalogDoc> {
  const text = search.trim();
  return text ? { tenantId, name: { $regex: escapeRegex(text), $options: 'i' } } : { tenantId };
}

function contactFilter(q: ContactQuery): QueryFilter<ContactDoc> {
  const filter: QueryFilter<ContactDoc> = { tenantId: q.tenantId };
  if (q.tagId !== undefined) filter.tagIds = q.tagId;
  const search = q.search?.trim();
  if (search) {
    const text = { $regex: escapeRegex(search), $options: 'i' };
    const digits = /^[+\d\s().-]+$/.test(search) ? search.replace(/\D/g, '') : '';
    filter.$or = [{ name: text }, { email: text }, { emailAddress: text }, { number: digits ? { $regex: escapeRegex(digits) } : text }];
  }
  return filter;
}

/** The listing filter: the same field names on tickets and on their listing rows. */
function ticketFilter(q: TicketQuery): QueryFilter<TicketRowDoc> {
  const filter: QueryFilter<TicketRowDoc> = { tenantId: q.tenantId };
  if (q.status) filter.status = q.status;
  if (q.queueIds?.length) filter.queueId = { $in: q.queueIds };
  if (q.channelIds?.length) filter.channelId = { $in: q.channelIds };
  if (q.tagId !== undefined) (filter as QueryFilter<TicketDoc>).tagIds = q.tagId;
  if (q.userId !== undefined) (filter as QueryFilter<TicketDoc>).userId = q.userId;
  const search = q.search?.trim();
  if (search) {
    const text = { $regex: escapeRegex(search), $options: 'i' };
    const or: QueryFilter<TicketRowDoc>[] = [{ 'contact.name': text }, { 'contact.email': text }];
    // "+55 (11) 9876" finds 5511987654321: numbers are stored as digits.
    const digits = /^[+\d\s().-]+$/.test(search) ? search.replace(/\D/g, '') : '';
    or.push({ 'contact.number': digits ? { $regex: escapeRegex(digits) } : text });
    filter.$or = or;
  }
  return filter;
}

/**
 * An upsert raced by another process's upsert of the same `_id` (two tickets replicas creating a
 * tenant's first counter at once) fails with a duplicate key on FerretDB, where MongoDB retries it
 * itself: the document exists now, so once more is an update.
 */
async function upsertOnce<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (!isDuplicateKey(err)) throw err;
    return write();
  }
}
