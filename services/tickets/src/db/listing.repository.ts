import { isDuplicateKey, onlyDuplicateKeys } from '@convo/kit/mongo';
import type { mongo } from 'mongoose';
import { KeyedQueue } from './keyed-queue';
import {
  cellOf,
  countMoves,
  eraKey,
  eraOf,
  slotDocId,
  slotOf,
  SLOT_MS,
  SLOTS_PER_ERA,
  type Cells,
  type Listed,
  type TicketCountDoc,
  type TicketSlotDoc,
} from './listing';
import type { Models, TicketDoc, TicketRowDoc } from './models';

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
}

const rowOf = (t: TicketDoc): TicketRowDoc => ({ ...t, slot: slotOf(t.updatedAt) });

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
