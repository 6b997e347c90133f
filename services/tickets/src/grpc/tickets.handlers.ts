import type { AsyncHandlers, ServiceRegistry } from '@convo/kit';
import type { TicketsService } from '../domain/tickets.service';

export function ticketsHandlers(svc: TicketsService): AsyncHandlers<ServiceRegistry['tickets']['handlers']> {
  return {
    CreateTicket: (req) => svc.createTicket(req),
    GetTicket: (req) => svc.getTicket(req.tenantId, req.ticketId),
    UpdateTicket: (req) => svc.updateTicket(req),
  };
}
