// Original file: /work/main/protos/tickets/v1/tickets.proto

import type { Ticket as _convo_tickets_v1_Ticket, Ticket__Output as _convo_tickets_v1_Ticket__Output } from '../../../convo/tickets/v1/Ticket';

export interface CreateTicketResponse {
  'ticket'?: (_convo_tickets_v1_Ticket | null);
  'created'?: (boolean);
}

export interface CreateTicketResponse__Output {
  'ticket': (_convo_tickets_v1_Ticket__Output | null);
  'created': (boolean);
}
