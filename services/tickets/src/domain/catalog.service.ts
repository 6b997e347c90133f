import { notFound, validation, type proto } from '@convo/kit';
import type { CatalogKind, TicketsRepository } from '../db/tickets.repository';

const MAX_NAME = 100;
/** listTags / listQueues answer pages of this many, as listTickets does. */
export const CATALOG_PAGE_SIZE = 20;

/** Tags and queues: tenant entities the GraphQL admin creates and tickets refer to by id. */
export class CatalogService {
  constructor(private readonly repo: TicketsRepository) {}

  async create(kind: CatalogKind, tenantId: number, rawName: string) {
    const name = rawName.trim();
    if (!Number.isInteger(tenantId) || tenantId < 1) throw validation(`Invalid ${kind}`, [{ field: 'tenantId', message: 'must be a positive integer' }]);
    if (!name || name.length > MAX_NAME) {
      throw validation(`Invalid ${kind}`, [{ field: 'name', message: `must have 1 to ${MAX_NAME} characters` }]);
    }
    return this.repo.findOrCreateCatalog(kind, tenantId, name);
  }

  list(kind: CatalogKind, tenantId: number) {
    return this.repo.listCatalog(kind, tenantId);
  }

  /** One page of the tenant's tags or queues by name; `search` is plain text in the name. */
  async page(kind: CatalogKind, req: proto.tickets.CatalogPageRequest__Output): Promise<proto.tickets.CatalogPage> {
    const page = Math.max(1, req.page || 1);
    const [items, count] = await Promise.all([
      this.repo.pageCatalog(kind, req.tenantId, req.search, (page - 1) * CATALOG_PAGE_SIZE, CATALOG_PAGE_SIZE),
      this.repo.countCatalog(kind, req.tenantId, req.search),
    ]);
    return {
      items: items.map((c) => ({ id: c._id, name: c.name, createdAt: new Date(c.createdAt).toISOString() })),
      count,
      hasMore: page * CATALOG_PAGE_SIZE < count,
      page,
      pageSize: CATALOG_PAGE_SIZE,
    };
  }

  /** Throws ERR_QUEUE_NOT_FOUND unless the queue is the tenant's. */
  async requireQueue(tenantId: number, queueId: number): Promise<void> {
    const [found] = await this.repo.findCatalogIds('queue', tenantId, [queueId]);
    if (!found) throw notFound('queue', `Queue ${queueId} not found`);
  }

  /** Throws ERR_TAG_NOT_FOUND naming every id that is not one of the tenant's tags. */
  async requireTags(tenantId: number, tagIds: number[]): Promise<void> {
    const found = new Set((await this.repo.findCatalogIds('tag', tenantId, tagIds)).map((t) => t._id));
    const missing = tagIds.filter((id) => !found.has(id));
    if (missing.length) throw notFound('tag', `Tag${missing.length > 1 ? 's' : ''} ${missing.join(', ')} not found`);
  }
}
