import { Arg, Int, Query, Resolver } from 'type-graphql';
import type { TicketDoc } from '../db/models';
import type { TicketsRepository } from '../db/tickets.repository';
import { toTicket } from '../domain/tickets.service';
import { Ticket } from './ticket.type';

export const toGraphTicket = (doc: TicketDoc): Ticket => {
  const ticket = toTicket(doc);
  return { ...ticket, pauseReason: ticket.pauseReason || null, channel: { id: doc.channelId } } as Ticket;
};

@Resolver(() => Ticket)
export class TicketResolver {
  constructor(private readonly repo: TicketsRepository) {}

  @Query(() => Ticket, { nullable: true })
  async ticket(@Arg('tenantId', () => Int) tenantId: number, @Arg('id', () => Int) id: number): Promise<Ticket | null> {
    const doc = await this.repo.findTicket(tenantId, id);
    return doc ? toGraphTicket(doc) : null;
  }
}
