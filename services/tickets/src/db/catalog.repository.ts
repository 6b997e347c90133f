import { isDuplicateKey, nextSequence } from '@convo/kit/mongo';
import type { Connection, QueryFilter } from 'mongoose';
import type { CatalogDoc, Models } from './models';
import { escapeRegex } from '@convo/kit/mongo';
import type { TicketsRepository } from './tickets.repository';

export type CatalogKind = 'tag' | 'queue' | 'kanban' | 'reason';
/** Tickets cleared of a deleted kanban column or reason at once. */
const CLEAR_BATCH = 16;

/** Tags, queues, kanban columns and reasons of a tenant. */
export class CatalogRepository {
  constructor(
    private readonly conn: Connection,
    private readonly models: Models,
    private readonly tickets: TicketsRepository,
  ) {}

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
        carrying
          .slice(i, i + CLEAR_BATCH)
          .map(({ _id }) => this.tickets.updateTicketWhere(tenantId, _id, { [field]: id }, { $set: { [field]: null } })),
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
    const doc: CatalogDoc = { _id: await nextSequence(this.conn, kind), tenantId, name, createdAt: new Date() };
    try {
      await model.create(doc);
      return doc;
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
      return (await model.findOne({ tenantId, name }).lean<CatalogDoc>().exec())!;
    }
  }

  findCatalogIds(kind: CatalogKind, tenantId: number, ids: number[]) {
    return this.catalog(kind)
      .find({ tenantId, _id: { $in: ids } }, { _id: 1 })
      .lean<Array<Pick<CatalogDoc, '_id'>>>()
      .exec();
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
}

/** Plain text, case-insensitive, anywhere in the name ('' matches every entity of the tenant). */
function nameFilter(tenantId: number, search: string): QueryFilter<CatalogDoc> {
  const text = search.trim();
  return text ? { tenantId, name: { $regex: escapeRegex(text), $options: 'i' } } : { tenantId };
}
