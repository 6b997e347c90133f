import { shownIdentities, type proto } from '@convo/kit';
import { tenantRowsLoader } from '@convo/kit/graphql/loaders';
import { Arg, Ctx, FieldResolver, Int, Query, Resolver, Root } from 'type-graphql';
import type { TicketDoc } from '../domain/ticket-view';
import type { NotesService } from '../domain/notes.service';
import { toTicket } from '../domain/ticket-view';
import type { TicketsService } from '../domain/tickets.service';
import { TicketNote } from './dashboard.type';
import { type Contact, Ticket } from './ticket.type';
import { TenantScoped } from '@convo/kit/graphql/subgraph';

/** The contact as every answer shows it: the key of a contact known only by its BSUID or LID never as its number. */
const toGraphContact = (c: proto.tickets.Contact): Contact => {
  const shown = shownIdentities(c);
  return {
    id: c.id ?? 0,
    number: shown.number,
    name: c.name ?? '',
    email: c.email ?? '',
    bsuid: shown.bsuid ?? null,
    parentBsuid: shown.parentBsuid ?? null,
    lid: shown.lid ?? null,
    username: shown.username ?? null,
  };
};

export const toGraphTicket = (doc: TicketDoc): Ticket => {
  const ticket = toTicket(doc);
  return {
    ...ticket,
    contact: toGraphContact(ticket.contact!),
    pauseReason: ticket.pauseReason || null,
    closedAt: ticket.closedAt || null,
    evaluation: ticket.evaluation
      ? { sentAt: ticket.evaluation.sentAt, answer: ticket.evaluation.answer || null, answeredAt: ticket.evaluation.answeredAt || null }
      : null,
    channel: { id: doc.channelId, tenantId: doc.tenantId },
  } as Ticket;
};

@Resolver(() => Ticket)
export class TicketResolver {
  constructor(
    private readonly tickets: TicketsService,
    private readonly notesService: NotesService,
  ) {}

  @Query(() => Ticket, { nullable: true })
  @TenantScoped('tenantId')
  async ticket(@Arg('tenantId', () => Int) tenantId: number, @Arg('id', () => Int) id: number): Promise<Ticket | null> {
    const doc = await this.tickets.findTicket(tenantId, id);
    return doc ? toGraphTicket(doc) : null;
  }

  @FieldResolver(() => [TicketNote], { description: 'Internal notes, oldest first (first 100).' })
  async notes(@Root() ticket: Ticket, @Ctx() context: unknown): Promise<TicketNote[]> {
    // A page of tickets reads its notes once per request: one query per tenant of the page.
    const loader = tenantRowsLoader(context, 'Ticket.notes', (tenantId, ticketIds: readonly number[]) =>
      this.notesService.firstNotesOf(tenantId, ticketIds, 100),
    );
    return ((await loader.load(ticket.tenantId, ticket.id)) ?? []).map((n) => ({
      id: n._id,
      notes: n.notes,
      userId: n.userId ?? null,
      createdAt: new Date(n.createdAt).toISOString(),
    }));
  }
}
