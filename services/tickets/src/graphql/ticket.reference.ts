import type { TicketsRepository } from '../db/tickets.repository';
import { toGraphTicket } from './ticket.resolver';

export const ticketReference = (repo: TicketsRepository) => async (ref: { id: number | string }) => {
  const doc = await repo.findTicketById(Number(ref.id));
  return doc ? toGraphTicket(doc) : null;
};
