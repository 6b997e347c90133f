import { keysetCursor, notFound, readKeysetCursor, validation, type proto } from '@convo/kit';
import { Arg, Int, Mutation, Query, Resolver } from 'type-graphql';
import { DASHBOARD_MAX_PAGE, type TicketsService } from '../domain/tickets.service';
import { TicketConnection, TicketCounts } from './dashboard.type';
import { toGraphTicket } from './ticket.resolver';
import { Ticket, TicketStatus } from './ticket.type';
import { TenantScoped } from '@convo/kit/graphql/subgraph';
import { DateTime } from '@convo/kit/graphql/scalars';

/**
 * The dashboard's ticket list, counts and actions, all through the same domain service as the REST
 * facade's gRPC calls, so the same rules apply (tenant scope, bounds, unknown queue or tag 404, …).
 */
@Resolver()
export class DashboardResolver {
  constructor(private readonly service: TicketsService) {}

  @Query(() => TicketConnection, {
    description:
      "A tenant's tickets, newest activity first (the id breaking ties), filtered. `after` is a keyset cursor: a ticket written between two pages moves to the front and the next page goes on after the last ticket seen, neither repeating nor skipping another.",
  })
  @TenantScoped('tenantId')
  async tickets(
    @Arg('tenantId', () => Int) tenantId: number,
    @Arg('status', () => TicketStatus, { nullable: true }) status: TicketStatus | null,
    @Arg('queueId', () => Int, { nullable: true }) queueId: number | null,
    @Arg('channelId', () => Int, { nullable: true }) channelId: number | null,
    @Arg('tagId', () => Int, { nullable: true }) tagId: number | null,
    @Arg('userId', () => Int, { nullable: true }) userId: number | null,
    @Arg('search', () => String, { nullable: true, description: "Text in the contact's name, number, e-mail, BSUID, LID or username." })
    search: string | null,
    @Arg('first', () => Int, { defaultValue: 20, description: `At most ${DASHBOARD_MAX_PAGE}.` }) first: number,
    @Arg('after', () => String, { nullable: true }) after: string | null,
    @Arg('statuses', () => [TicketStatus], { nullable: true, description: 'Several statuses at once (not with `status`).' })
    statuses: TicketStatus[] | null,
    @Arg('noQueue', () => Boolean, { nullable: true, description: 'Only tickets in no queue (not with `queueId`).' })
    noQueue: boolean | null,
    @Arg('unassigned', () => Boolean, { nullable: true, description: 'Only tickets of no user (not with `userId`).' })
    unassigned: boolean | null,
    @Arg('updatedSince', () => DateTime, { nullable: true, description: 'Last activity at or after this time.' })
    updatedSince: string | null,
    @Arg('updatedUntil', () => DateTime, { nullable: true, description: 'Last activity before this time.' }) updatedUntil: string | null,
  ): Promise<TicketConnection> {
    const position = readKeysetCursor(after);
    const query = {
      tenantId,
      status: status ?? undefined,
      search: search ?? undefined,
      queueIds: queueId ? [queueId] : undefined,
      channelIds: channelId ? [channelId] : undefined,
      tagId: tagId ?? undefined,
      userId: userId ?? undefined,
      statuses: statuses ?? undefined,
      noQueue: noQueue ?? undefined,
      unassigned: unassigned ?? undefined,
      // ISO instants as the DateTime scalar reads them.
      updatedSince: updatedSince ? new Date(updatedSince) : undefined,
      updatedUntil: updatedUntil ? new Date(updatedUntil) : undefined,
    };
    const page = await this.service.pageTicketsAfter(query, position && { updatedAt: position.at, id: position.id }, first);
    const last = page.tickets[page.tickets.length - 1];
    return {
      nodes: page.tickets.map(toGraphTicket),
      totalCount: page.count,
      pageInfo: { hasNextPage: page.hasMore, endCursor: last ? keysetCursor(last.updatedAt, last._id) : (after ?? null) },
    };
  }

  @Query(() => TicketCounts, { description: "A tenant's tickets counted by status, queue and channel." })
  @TenantScoped('tenantId')
  async ticketCounts(@Arg('tenantId', () => Int) tenantId: number): Promise<TicketCounts> {
    const [byStatus, byQueue, byChannel] = await Promise.all(
      (['status', 'queueId', 'channelId'] as const).map((field) => this.service.countTicketsBy(tenantId, field)),
    );
    const text = (groups: Array<{ key: string | number | null; count: number }>) =>
      groups.map((g) => ({ key: g.key === null ? null : String(g.key), count: g.count }));
    return { byStatus: text(byStatus), byQueue: text(byQueue), byChannel: text(byChannel) };
  }

  @Mutation(() => Ticket)
  @TenantScoped('tenantId')
  async closeTicket(@Arg('tenantId', () => Int) tenantId: number, @Arg('ticketId', () => Int) ticketId: number): Promise<Ticket> {
    return this.setStatus(tenantId, ticketId, TicketStatus.closed);
  }

  @Mutation(() => Ticket)
  @TenantScoped('tenantId')
  async reopenTicket(@Arg('tenantId', () => Int) tenantId: number, @Arg('ticketId', () => Int) ticketId: number): Promise<Ticket> {
    return this.setStatus(tenantId, ticketId, TicketStatus.open);
  }

  @Mutation(() => Ticket, { description: 'Assigns the ticket to a user (as updateticketinfo with userId).' })
  @TenantScoped('tenantId')
  async assignTicket(
    @Arg('tenantId', () => Int) tenantId: number,
    @Arg('ticketId', () => Int) ticketId: number,
    @Arg('userId', () => Int) userId: number,
  ): Promise<Ticket> {
    await this.service.updateTicket({ tenantId, ticketId, userId } as proto.tickets.UpdateTicketRequest__Output);
    return this.reread(tenantId, ticketId);
  }

  @Mutation(() => Ticket, { description: 'Moves the ticket to a queue of its tenant.' })
  @TenantScoped('tenantId')
  async moveTicket(
    @Arg('tenantId', () => Int) tenantId: number,
    @Arg('ticketId', () => Int) ticketId: number,
    @Arg('queueId', () => Int) queueId: number,
  ): Promise<Ticket> {
    await this.service.setQueue(tenantId, ticketId, queueId);
    return this.reread(tenantId, ticketId);
  }

  @Mutation(() => Ticket)
  @TenantScoped('tenantId')
  async addTicketTags(
    @Arg('tenantId', () => Int) tenantId: number,
    @Arg('ticketId', () => Int) ticketId: number,
    @Arg('tagIds', () => [Int]) tagIds: number[],
  ): Promise<Ticket> {
    if (tagIds.length > 50) throw validation('Too many tags', [{ field: 'tagIds', message: 'at most 50' }]);
    await this.service.addTags(tenantId, ticketId, tagIds);
    return this.reread(tenantId, ticketId);
  }

  @Mutation(() => Ticket)
  @TenantScoped('tenantId')
  async removeTicketTag(
    @Arg('tenantId', () => Int) tenantId: number,
    @Arg('ticketId', () => Int) ticketId: number,
    @Arg('tagId', () => Int) tagId: number,
  ): Promise<Ticket> {
    await this.service.removeTag(tenantId, ticketId, tagId);
    return this.reread(tenantId, ticketId);
  }

  private async setStatus(tenantId: number, ticketId: number, status: TicketStatus): Promise<Ticket> {
    await this.service.updateTicket({
      tenantId,
      ticketId,
      status,
      clearQueue: false,
      clearChatFlow: false,
      clearKanban: false,
      clearReason: false,
    });
    return this.reread(tenantId, ticketId);
  }

  private async reread(tenantId: number, ticketId: number): Promise<Ticket> {
    const doc = await this.service.findTicket(tenantId, ticketId);
    // Removed between the change and its re-read: gone, as a ticket that never was.
    if (!doc) throw notFound('ticket');
    return toGraphTicket(doc);
  }
}
