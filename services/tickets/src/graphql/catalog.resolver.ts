import { Arg, Int, Mutation, Query, Resolver } from 'type-graphql';
import type { CatalogDoc } from '../db/models';
import type { CatalogService } from '../domain/catalog.service';
import { Queue, Tag } from './catalog.type';

const toGraph = (doc: CatalogDoc) => ({
  id: doc._id,
  tenantId: doc.tenantId,
  name: doc.name,
  createdAt: new Date(doc.createdAt).toISOString(),
});

/**
 * Tags and queues are created by the platform admin over GraphQL (CONVENTIONS.md). Creating a
 * name the tenant already has answers the existing one, so a retried mutation makes no duplicate.
 */
@Resolver()
export class CatalogResolver {
  constructor(private readonly catalog: CatalogService) {}

  @Mutation(() => Tag)
  async createTag(@Arg('tenantId', () => Int) tenantId: number, @Arg('name') name: string): Promise<Tag> {
    return toGraph(await this.catalog.create('tag', tenantId, name));
  }

  @Mutation(() => Queue)
  async createQueue(@Arg('tenantId', () => Int) tenantId: number, @Arg('name') name: string): Promise<Queue> {
    return toGraph(await this.catalog.create('queue', tenantId, name));
  }

  @Query(() => [Tag])
  async tags(@Arg('tenantId', () => Int) tenantId: number): Promise<Tag[]> {
    return (await this.catalog.list('tag', tenantId)).map(toGraph);
  }

  @Query(() => [Queue])
  async queues(@Arg('tenantId', () => Int) tenantId: number): Promise<Queue[]> {
    return (await this.catalog.list('queue', tenantId)).map(toGraph);
  }
}
