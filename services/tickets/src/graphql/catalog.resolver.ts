import { Arg, Int, Mutation, Query, Resolver } from 'type-graphql';
import type { CatalogDoc } from '../domain/catalog.service';
import type { CatalogService } from '../domain/catalog.service';
import { CatalogDeletion, Kanban, Queue, Reason, Tag } from './catalog.type';
import { TenantScoped } from '@convo/kit/graphql/subgraph';

const toGraph = (doc: CatalogDoc) => ({
  id: doc._id,
  tenantId: doc.tenantId,
  name: doc.name,
  position: doc.position ?? null,
  createdAt: new Date(doc.createdAt).toISOString(),
});

const fromItem = (tenantId: number, item: { id: number; name: string; position?: number; createdAt: string }) => ({
  id: item.id,
  tenantId,
  name: item.name,
  position: item.position ?? null,
  createdAt: item.createdAt,
});

/**
 * Tags and queues are created by the platform admin over GraphQL (CONVENTIONS.md). Creating a
 * name the tenant already has answers the existing one, so a retried mutation makes no duplicate.
 */
@Resolver()
export class CatalogResolver {
  constructor(private readonly catalog: CatalogService) {}

  @Mutation(() => Tag)
  @TenantScoped('tenantId')
  async createTag(@Arg('tenantId', () => Int) tenantId: number, @Arg('name') name: string): Promise<Tag> {
    return toGraph(await this.catalog.create('tag', tenantId, name));
  }

  @Mutation(() => Queue)
  @TenantScoped('tenantId')
  async createQueue(@Arg('tenantId', () => Int) tenantId: number, @Arg('name') name: string): Promise<Queue> {
    return toGraph(await this.catalog.create('queue', tenantId, name));
  }

  // Kanban columns and reasons, the same operations as the external API's (the dashboards' mirror).

  @Query(() => [Kanban])
  @TenantScoped('tenantId')
  async kanbans(@Arg('tenantId', () => Int) tenantId: number): Promise<Kanban[]> {
    return (await this.catalog.list('kanban', tenantId)).map(toGraph);
  }

  @Query(() => [Reason])
  @TenantScoped('tenantId')
  async reasons(@Arg('tenantId', () => Int) tenantId: number): Promise<Reason[]> {
    return (await this.catalog.list('reason', tenantId)).map(toGraph);
  }

  @Mutation(() => Kanban)
  @TenantScoped('tenantId')
  async saveKanban(
    @Arg('tenantId', () => Int) tenantId: number,
    @Arg('name', { nullable: true }) name?: string,
    @Arg('id', () => Int, { nullable: true, description: 'Absent creates' }) id?: number,
    @Arg('position', () => Int, { nullable: true }) position?: number,
  ): Promise<Kanban> {
    return fromItem(
      tenantId,
      await this.catalog.save({
        tenantId,
        kind: 'kanban',
        id: id ?? 0,
        name: name ?? '',
        ...(position === undefined || position === null ? {} : { position }),
      }),
    );
  }

  @Mutation(() => Reason)
  @TenantScoped('tenantId')
  async saveReason(
    @Arg('tenantId', () => Int) tenantId: number,
    @Arg('name') name: string,
    @Arg('id', () => Int, { nullable: true, description: 'Absent creates' }) id?: number,
  ): Promise<Reason> {
    return fromItem(tenantId, await this.catalog.save({ tenantId, kind: 'reason', id: id ?? 0, name }));
  }

  @Mutation(() => CatalogDeletion)
  @TenantScoped('tenantId')
  async deleteKanban(@Arg('tenantId', () => Int) tenantId: number, @Arg('id', () => Int) id: number): Promise<CatalogDeletion> {
    return this.catalog.delete({ tenantId, kind: 'kanban', id });
  }

  @Mutation(() => CatalogDeletion)
  @TenantScoped('tenantId')
  async deleteReason(@Arg('tenantId', () => Int) tenantId: number, @Arg('id', () => Int) id: number): Promise<CatalogDeletion> {
    return this.catalog.delete({ tenantId, kind: 'reason', id });
  }

  @Query(() => [Tag])
  @TenantScoped('tenantId')
  async tags(@Arg('tenantId', () => Int) tenantId: number): Promise<Tag[]> {
    return (await this.catalog.list('tag', tenantId)).map(toGraph);
  }

  @Query(() => [Queue])
  @TenantScoped('tenantId')
  async queues(@Arg('tenantId', () => Int) tenantId: number): Promise<Queue[]> {
    return (await this.catalog.list('queue', tenantId)).map(toGraph);
  }
}
