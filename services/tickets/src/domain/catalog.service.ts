import { conflict, notFound, validation, type proto } from '@convo/kit';
import { isDuplicateKey } from '@convo/kit/mongo';
import type { CatalogDoc } from '../db/models';
import type { CatalogKind } from '../db/catalog.repository';
import type { TicketsDatabase } from '../db/repositories';

export type { CatalogDoc };

const MAX_NAME = 100;
/** listTags / listQueues answer pages of this many, as listTickets does. */
export const CATALOG_PAGE_SIZE = 20;

/** What SaveCatalogItem may create or change (tags are created over GraphQL only). */
const SAVABLE = ['kanban', 'reason', 'queue'] as const;
type Savable = (typeof SAVABLE)[number];
const MAX_POSITION = 10_000;

export const catalogItem = (c: CatalogDoc): proto.tickets.CatalogItem__Output => ({
  id: c._id,
  name: c.name,
  createdAt: new Date(c.createdAt).toISOString(),
  ...(c.position !== undefined && c.position !== null ? { position: c.position } : {}),
});

/** Tags, queues, kanban columns and reasons: tenant entities tickets refer to by id. */
export class CatalogService {
  constructor(private readonly repo: TicketsDatabase) {}

  async create(kind: CatalogKind, tenantId: number, rawName: string) {
    if (!Number.isInteger(tenantId) || tenantId < 1)
      throw validation(`Invalid ${kind}`, [{ field: 'tenantId', message: 'must be a positive integer' }]);
    return this.repo.catalog.findOrCreateCatalog(kind, tenantId, checkedName(kind, rawName));
  }

  list(kind: CatalogKind, tenantId: number) {
    return this.repo.catalog.listCatalog(kind, tenantId);
  }

  /** One page of the tenant's tags or queues by name; `search` is plain text in the name. */
  async page(kind: CatalogKind, req: proto.tickets.CatalogPageRequest__Output): Promise<proto.tickets.CatalogPage> {
    const page = Math.max(1, req.page || 1);
    const [items, count] = await Promise.all([
      this.repo.catalog.pageCatalog(kind, req.tenantId, req.search, (page - 1) * CATALOG_PAGE_SIZE, CATALOG_PAGE_SIZE),
      this.repo.catalog.countCatalog(kind, req.tenantId, req.search),
    ]);
    return {
      items: items.map(catalogItem),
      count,
      hasMore: page * CATALOG_PAGE_SIZE < count,
      page,
      pageSize: CATALOG_PAGE_SIZE,
    };
  }

  /**
   * Creates (id 0) or changes a kanban column, reason or queue of the tenant. Creating a name the
   * tenant has answers that entity (a retried create makes no duplicate); renaming to a name another
   * has → 409 ERR_<KIND>_EXISTS; another tenant's id → 404 ERR_<KIND>_NOT_FOUND.
   */
  async save(req: proto.tickets.SaveCatalogItemRequest__Output): Promise<proto.tickets.CatalogItem__Output> {
    const kind = savable(req.kind);
    const position = req.position;
    if (position !== undefined && (!Number.isInteger(position) || position < 0 || position > MAX_POSITION)) {
      throw validation(`Invalid ${kind}`, [{ field: 'position', message: `must be an integer from 0 to ${MAX_POSITION}` }]);
    }
    if (!req.id) {
      const created = await this.create(kind, req.tenantId, req.name);
      if (position === undefined || created.position === position) return catalogItem(created);
      return catalogItem((await this.repo.catalog.updateCatalog(kind, req.tenantId, created._id, { position }))!);
    }
    const set: Partial<CatalogDoc> = { updatedAt: new Date() };
    if (req.name) set.name = checkedName(kind, req.name);
    if (position !== undefined) set.position = position;
    try {
      const updated = await this.repo.catalog.updateCatalog(kind, req.tenantId, req.id, set);
      if (!updated) throw notFound(kind);
      return catalogItem(updated);
    } catch (err) {
      if (isDuplicateKey(err)) throw conflict(`ERR_${kind.toUpperCase()}_EXISTS`, `The tenant has a ${kind} named ${set.name} already`);
      throw err;
    }
  }

  /** Deletes a kanban column or reason; the tickets that carried it no longer do. */
  async delete(req: proto.tickets.DeleteCatalogItemRequest__Output): Promise<proto.tickets.DeleteCatalogItemResponse__Output> {
    if (req.kind !== 'kanban' && req.kind !== 'reason')
      throw validation('Invalid kind', [{ field: 'kind', message: 'must be kanban or reason' }]);
    const done = await this.repo.catalog.deleteCatalog(req.kind, req.tenantId, req.id);
    if (!done) throw notFound(req.kind);
    return { id: req.id, ticketsCleared: done.ticketsCleared };
  }

  /** Throws ERR_KANBAN_NOT_FOUND / ERR_REASON_NOT_FOUND unless the id is the tenant's. */
  async requireOne(kind: 'kanban' | 'reason', tenantId: number, id: number): Promise<void> {
    const [found] = await this.repo.catalog.findCatalogIds(kind, tenantId, [id]);
    if (!found) throw notFound(kind, `${kind === 'kanban' ? 'Kanban column' : 'Reason'} ${id} not found`);
  }

  /** Throws ERR_QUEUE_NOT_FOUND unless the queue is the tenant's. */
  async requireQueue(tenantId: number, queueId: number): Promise<void> {
    const [found] = await this.repo.catalog.findCatalogIds('queue', tenantId, [queueId]);
    if (!found) throw notFound('queue', `Queue ${queueId} not found`);
  }

  /** Throws ERR_TAG_NOT_FOUND naming every id that is not one of the tenant's tags. */
  async requireTags(tenantId: number, tagIds: number[]): Promise<void> {
    const found = new Set((await this.repo.catalog.findCatalogIds('tag', tenantId, tagIds)).map((t) => t._id));
    const missing = tagIds.filter((id) => !found.has(id));
    if (missing.length) throw notFound('tag', `Tag${missing.length > 1 ? 's' : ''} ${missing.join(', ')} not found`);
  }
}

function checkedName(kind: string, rawName: string): string {
  const name = rawName.trim();
  if (!name || name.length > MAX_NAME)
    throw validation(`Invalid ${kind}`, [{ field: 'name', message: `must have 1 to ${MAX_NAME} characters` }]);
  return name;
}

function savable(kind: string): Savable {
  if (!(SAVABLE as readonly string[]).includes(kind))
    throw validation('Invalid kind', [{ field: 'kind', message: `must be one of ${SAVABLE.join(', ')}` }]);
  return kind as Savable;
}
