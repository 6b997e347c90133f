import type * as grpc from '@grpc/grpc-js';
import type { MessageTypeDefinition } from '@grpc/proto-loader';

import type { Contact as _convo_tickets_v1_Contact, Contact__Output as _convo_tickets_v1_Contact__Output } from './convo/tickets/v1/Contact';
import type { CreateTicketRequest as _convo_tickets_v1_CreateTicketRequest, CreateTicketRequest__Output as _convo_tickets_v1_CreateTicketRequest__Output } from './convo/tickets/v1/CreateTicketRequest';
import type { CreateTicketResponse as _convo_tickets_v1_CreateTicketResponse, CreateTicketResponse__Output as _convo_tickets_v1_CreateTicketResponse__Output } from './convo/tickets/v1/CreateTicketResponse';
import type { GetTicketRequest as _convo_tickets_v1_GetTicketRequest, GetTicketRequest__Output as _convo_tickets_v1_GetTicketRequest__Output } from './convo/tickets/v1/GetTicketRequest';
import type { Ticket as _convo_tickets_v1_Ticket, Ticket__Output as _convo_tickets_v1_Ticket__Output } from './convo/tickets/v1/Ticket';
import type { TicketsServiceClient as _convo_tickets_v1_TicketsServiceClient, TicketsServiceDefinition as _convo_tickets_v1_TicketsServiceDefinition } from './convo/tickets/v1/TicketsService';
import type { UpdateTicketRequest as _convo_tickets_v1_UpdateTicketRequest, UpdateTicketRequest__Output as _convo_tickets_v1_UpdateTicketRequest__Output } from './convo/tickets/v1/UpdateTicketRequest';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  convo: {
    tickets: {
      v1: {
        Contact: MessageTypeDefinition<_convo_tickets_v1_Contact, _convo_tickets_v1_Contact__Output>
        CreateTicketRequest: MessageTypeDefinition<_convo_tickets_v1_CreateTicketRequest, _convo_tickets_v1_CreateTicketRequest__Output>
        CreateTicketResponse: MessageTypeDefinition<_convo_tickets_v1_CreateTicketResponse, _convo_tickets_v1_CreateTicketResponse__Output>
        GetTicketRequest: MessageTypeDefinition<_convo_tickets_v1_GetTicketRequest, _convo_tickets_v1_GetTicketRequest__Output>
        Ticket: MessageTypeDefinition<_convo_tickets_v1_Ticket, _convo_tickets_v1_Ticket__Output>
        TicketsService: SubtypeConstructor<typeof grpc.Client, _convo_tickets_v1_TicketsServiceClient> & { service: _convo_tickets_v1_TicketsServiceDefinition }
        UpdateTicketRequest: MessageTypeDefinition<_convo_tickets_v1_UpdateTicketRequest, _convo_tickets_v1_UpdateTicketRequest__Output>
      }
    }
  }
}

