import { CallStream, type ServiceClient } from '@convo/kit';

/**
 * tickets' client with GetTicket carried on GetTicketStream (the kit's grpc/call-stream.ts): every
 * accepted send looks its ticket up, and a unary call each cost messaging and tickets more CPU than
 * the lookup. It answers and fails as the unary call does; every other method stays unary.
 */
export function withStreamedTicketLookups(tickets: ServiceClient<'tickets'>): ServiceClient<'tickets'> {
  const lookups = new CallStream(() => tickets.GetTicketStream(), { service: 'tickets', method: 'GetTicket', peer: 'tickets' });
  return { ...tickets, GetTicket: lookups.call };
}
