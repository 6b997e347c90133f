import { isDuplicateKey, onlyDuplicateKeys } from '@convo/kit/mongo';
import type { mongo, QueryFilter } from 'mongoose';
import { KeyedQueue } from './keyed-queue';
import {
  cellMatcher,
  cellOf,
  countMoves,
  eraKey,
  eraOf,
  eraOfKey,
  parseCell,
  slotDocId,
  slotOf,
  SLOT_MS,
  SLOTS_PER_ERA,
  sumCells,
  type Cells,
  type Listed,
  type TicketCountDoc,
  type TicketSlotDoc,
} from './listing';
import type { Models, TicketDoc, TicketRowDoc, TicketStatus } from './models';
import { escapeRegex } from '@convo/kit/mongo';
import { SEARCHED_IDENTITIES } from './search';

/**
 * The most tickets and rows may differ in number at start and still be left to heal by the writes
 * themselves: another replica's writes in flight (a ticket, then its row), or the few a replica
 * killed between the two left (that ticket gets its row at its next write). Beyond it, or with
 * another layout, the listing is rebuilt.
 */
const HEALING_GAP = 50;

/** An unordered insert's failure that is only duplicate keys (documents another replica wrote) is none. */
const onlyDuplicates = (err: unknown): void => {
  if (!onlyDuplicateKeys(err)) throw err;
};

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

/** Newest activity first; the id breaks ties, so a page boundary never repeats or skips a ticket. */
const LIST_ORDER = { updatedAt: -1, _id: -1 } as const;

/** The `ticket_counts` document that records the listing's layout (no tenant has id 0). */
const LAYOUT_ID = 0;
const LAYOUT = { slotMs: SLOT_MS, slotsPerEra: SLOTS_PER_ERA, rows: 'tickets' };

/** What a row is counted under, as read back from the database (a row of an older layout has no slot). */
const listedOf = (r: Pick<TicketRowDoc, 'tenantId' | 'slot' | 'status' | 'queueId' | 'channelId'> | null): Listed | null =>
  r && typeof r.slot === 'number'
    ? { tenantId: r.tenantId, slot: r.slot, status: r.status, queueId: r.queueId ?? null, channelId: r.channelId }
    : null;

/**
 * The listing projection of tickets: a row per ticket (a copy with its hour slot) and the counts
 * of rows per tenant, era and slot (listing.ts), which page and count listTickets and the dashboard.
 */
export class ListingRepository {
  /**
   * The listing counters of a tenant change one move at a time: FerretDB applies `$inc` as read,
   * add, write back, so two concurrent moves could lose one. MongoDB's `$inc` is atomic, so there
   * any number of tickets processes may write; on the embedded database this relies on the one
   * tickets process of the mesh (as TicketsRepository's per-ticket queue does). With more replicas
   * there (MESH_REPLICAS), a tenant's listing counts may lose a move made at the same moment by
   * another replica (dev and tests only; no write fails: see upsertOnce).
   */
  private readonly perTenantCounts = new KeyedQueue();

  constructor(private readonly models: Models) {}

  /** The counters through the driver: their `$inc` names fields after data (eras, slots, cells). */
  private get tenantCounts() {
    return this.models.TicketCount.collection as unknown as mongo.Collection<TicketCountDoc>;
  }

  private get slotCounts() {
    return this.models.TicketSlot.collection as unknown as mongo.Collection<TicketSlotDoc>;
  }

  /**
   * Tickets written before their listing rows existed (an older version, or data loaded from
   * outside), or rows and counts of another layout, get rebuilt at start: two cheap counts and one
   * lookup decide, and a rebuild (reading every ticket once) runs only when the layout changed or
   * the counts differ by more than HEALING_GAP. Answers the gap (tickets less rows) left to heal.
   */
  async backfillListing(): Promise<number> {
    const [tickets, rows, marker] = await Promise.all([
      this.models.Ticket.estimatedDocumentCount().exec(),
      this.models.TicketRow.estimatedDocumentCount().exec(),
      this.models.TicketCount.findById(LAYOUT_ID).lean<TicketCountDoc>().exec(),
    ]);
    const sameLayout = JSON.stringify(marker?.layout) === JSON.stringify(LAYOUT);
    if (tickets === rows && (sameLayout || tickets === 0)) {
      if (!sameLayout) await this.writeLayout();
      return 0;
    }
    // A rebuild drops every row while other replicas may be serving pages from them, and reads
    // every ticket: a small gap is not worth it.
    if (sameLayout && Math.abs(tickets - rows) <= HEALING_GAP) return tickets - rows;
    await this.rebuildListing();
    return 0;
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
      // A row another replica wrote meanwhile (it serves while this one starts, and a ticket it had
      // just inserted made the counts differ) is the same row: only other errors count.
      await this.models.TicketRow.collection.insertMany(batch.splice(0) as never[], { ordered: false }).catch(onlyDuplicates);
    };
    // A batch at a time (its own size, not the one-batch default of finds: the tickets can be many).
    for await (const t of this.models.Ticket.find({}).batchSize(1_000).lean<TicketDoc>().cursor()) {
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
    // A count another replica wrote meanwhile stays as it wrote it (the counts are the listing's
    // approximate ones under replicas on FerretDB, docs/development.md); the start goes on.
    const docs = [...slots.values()];
    for (let i = 0; i < docs.length; i += 1_000)
      await this.slotCounts.insertMany(docs.slice(i, i + 1_000), { ordered: false }).catch(onlyDuplicates);
    const counts = [...tenants].map(([tenantId, eras]) => ({ _id: tenantId, eras }));
    for (let i = 0; i < counts.length; i += 1_000)
      await this.tenantCounts.insertMany(counts.slice(i, i + 1_000), { ordered: false }).catch(onlyDuplicates);
    // Last: a rebuild cut short runs again at the next start.
    await this.writeLayout();
  }

  /**
   * The listing row of a ticket, written after each write of the ticket (by `_id` alone), and the
   * counts moved when the row changed slot or cell. Callers hold the ticket's turn (perTicket).
   */
  async writeRow(ticket: TicketDoc): Promise<void> {
    const row = rowOf(ticket);
    // The whole former row comes back: FerretDB's findAndModify takes no projection.
    const before = await this.models.TicketRow.findOneAndReplace({ _id: ticket._id }, row, { upsert: true, returnDocument: 'before' })
      .lean<TicketRowDoc>()
      .exec();
    await this.moveCounts(listedOf(before), listedOf(row));
  }

  /** Drops a deleted ticket's row (the tenant's, if any is left) and uncounts it. Callers hold the ticket's turn. */
  async deleteRow(tenantId: number, id: number): Promise<void> {
    const row = await this.models.TicketRow.findOneAndDelete({ _id: id, tenantId }).lean<TicketRowDoc>().exec();
    await this.moveCounts(listedOf(row), null);
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
    const slotDocs = await Promise.all(
      eraSpan.units.map(({ at }) => this.models.TicketSlot.find({ tenantId, era: at }).lean<TicketSlotDoc[]>().exec()),
    );
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
    return {
      tickets: rows
        .flat()
        .slice(slotSpan.skip, slotSpan.skip + limit)
        .map(ticketOfRow),
      count,
    };
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
    return [...groups]
      .map(([key, count]) => ({ key, count }))
      .sort((a, b) => b.count - a.count || String(a.key).localeCompare(String(b.key)));
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
    // The identities beyond the phone too (docs/api/contact-identities.md): more alternatives of
    // the same filter on the rows the order already reads, no other read.
    const or: QueryFilter<TicketRowDoc>[] = ['contact.name', 'contact.email', ...SEARCHED_IDENTITIES.map((f) => `contact.${f}`)].map(
      (field) => ({ [field]: text }),
    );
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
