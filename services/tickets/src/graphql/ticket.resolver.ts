import { Arg, FieldResolver, Int, Query, Resolver, Root } from 'type-graphql';
import type { TicketDoc } from '../domain/ticket-view';
import type { NotesService } from '../domain/notes.service';
import { toTicket } from '../domain/ticket-view';
import type { TicketsService } from '../domain/tickets.service';
import { TicketNote } from './dashboard.type';
import { Ticket } from './ticket.type';

export const toGraphTicket = (doc: TicketDoc): Ticket => {
  const ticket = toTicket(doc);
  return { ...ticket, pauseReason: ticket.pauseReason || null, channel: { id: doc.channelId, tenantId: doc.tenantId } } as Ticket;
};

@Resolver(() => Ticket)
export class TicketResolver {
  constructor(
    private readonly tickets: TicketsService,
    private readonly notesService: NotesService,
  ) {}

  @Query(() => Ticket, { nullable: true })
  async ticket(@Arg('tenantId', () => Int) tenantId: number, @Arg('id', () => Int) id: number): Promise<Ticket | null> {
    const doc = await this.tickets.findTicket(tenantId, id);
    return doc ? toGraphTicket(doc) : null;
  }

  @FieldResolver(() => [TicketNote], { description: 'Internal notes, oldest first (first 100).' })
  async notes(@Root() ticket: Ticket): Promise<TicketNote[]> {
    return (await this.notesService.firstNotes(ticket.tenantId, ticket.id, 100)).map((n) => ({
      id: n._id,
      notes: n.notes,
      userId: n.userId ?? null,
      createdAt: new Date(n.createdAt).toISOString(),
    }));
  }
}
