import { findByIds, requestLoader } from '@convo/kit/graphql/loaders';
import type { TicketsService } from '../domain/tickets.service';
import { toGraphTicket } from './ticket.resolver';

/** Tickets named by another subgraph: one loader per request, one `_id` read per distinct ticket. */
export const ticketReference = (tickets: TicketsService) => async (ref: { id: number | string }, context: unknown) => {
  const loader = requestLoader(context, 'Ticket', (ids: readonly number[]) => findByIds(ids, (id) => tickets.findReferencedTicket(id)));
  const doc = await loader.load(Number(ref.id));
  return doc ? toGraphTicket(doc) : null;
};
