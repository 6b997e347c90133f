// Original file: /work/main/protos/tickets/v1/tickets.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { CreateTicketRequest as _convo_tickets_v1_CreateTicketRequest, CreateTicketRequest__Output as _convo_tickets_v1_CreateTicketRequest__Output } from '../../../convo/tickets/v1/CreateTicketRequest';
import type { CreateTicketResponse as _convo_tickets_v1_CreateTicketResponse, CreateTicketResponse__Output as _convo_tickets_v1_CreateTicketResponse__Output } from '../../../convo/tickets/v1/CreateTicketResponse';
import type { GetTicketRequest as _convo_tickets_v1_GetTicketRequest, GetTicketRequest__Output as _convo_tickets_v1_GetTicketRequest__Output } from '../../../convo/tickets/v1/GetTicketRequest';
import type { Ticket as _convo_tickets_v1_Ticket, Ticket__Output as _convo_tickets_v1_Ticket__Output } from '../../../convo/tickets/v1/Ticket';
import type { UpdateTicketRequest as _convo_tickets_v1_UpdateTicketRequest, UpdateTicketRequest__Output as _convo_tickets_v1_UpdateTicketRequest__Output } from '../../../convo/tickets/v1/UpdateTicketRequest';

export interface TicketsServiceClient extends grpc.Client {
  CreateTicket(argument: _convo_tickets_v1_CreateTicketRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_convo_tickets_v1_CreateTicketResponse__Output>): grpc.ClientUnaryCall;
  CreateTicket(argument: _convo_tickets_v1_CreateTicketRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_convo_tickets_v1_CreateTicketResponse__Output>): grpc.ClientUnaryCall;
  CreateTicket(argument: _convo_tickets_v1_CreateTicketRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_convo_tickets_v1_CreateTicketResponse__Output>): grpc.ClientUnaryCall;
  CreateTicket(argument: _convo_tickets_v1_CreateTicketRequest, callback: grpc.requestCallback<_convo_tickets_v1_CreateTicketResponse__Output>): grpc.ClientUnaryCall;
  createTicket(argument: _convo_tickets_v1_CreateTicketRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_convo_tickets_v1_CreateTicketResponse__Output>): grpc.ClientUnaryCall;
  createTicket(argument: _convo_tickets_v1_CreateTicketRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_convo_tickets_v1_CreateTicketResponse__Output>): grpc.ClientUnaryCall;
  createTicket(argument: _convo_tickets_v1_CreateTicketRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_convo_tickets_v1_CreateTicketResponse__Output>): grpc.ClientUnaryCall;
  createTicket(argument: _convo_tickets_v1_CreateTicketRequest, callback: grpc.requestCallback<_convo_tickets_v1_CreateTicketResponse__Output>): grpc.ClientUnaryCall;
  
  GetTicket(argument: _convo_tickets_v1_GetTicketRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_convo_tickets_v1_Ticket__Output>): grpc.ClientUnaryCall;
  GetTicket(argument: _convo_tickets_v1_GetTicketRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_convo_tickets_v1_Ticket__Output>): grpc.ClientUnaryCall;
  GetTicket(argument: _convo_tickets_v1_GetTicketRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_convo_tickets_v1_Ticket__Output>): grpc.ClientUnaryCall;
  GetTicket(argument: _convo_tickets_v1_GetTicketRequest, callback: grpc.requestCallback<_convo_tickets_v1_Ticket__Output>): grpc.ClientUnaryCall;
  getTicket(argument: _convo_tickets_v1_GetTicketRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_convo_tickets_v1_Ticket__Output>): grpc.ClientUnaryCall;
  getTicket(argument: _convo_tickets_v1_GetTicketRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_convo_tickets_v1_Ticket__Output>): grpc.ClientUnaryCall;
  getTicket(argument: _convo_tickets_v1_GetTicketRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_convo_tickets_v1_Ticket__Output>): grpc.ClientUnaryCall;
  getTicket(argument: _convo_tickets_v1_GetTicketRequest, callback: grpc.requestCallback<_convo_tickets_v1_Ticket__Output>): grpc.ClientUnaryCall;
  
  UpdateTicket(argument: _convo_tickets_v1_UpdateTicketRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_convo_tickets_v1_Ticket__Output>): grpc.ClientUnaryCall;
  UpdateTicket(argument: _convo_tickets_v1_UpdateTicketRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_convo_tickets_v1_Ticket__Output>): grpc.ClientUnaryCall;
  UpdateTicket(argument: _convo_tickets_v1_UpdateTicketRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_convo_tickets_v1_Ticket__Output>): grpc.ClientUnaryCall;
  UpdateTicket(argument: _convo_tickets_v1_UpdateTicketRequest, callback: grpc.requestCallback<_convo_tickets_v1_Ticket__Output>): grpc.ClientUnaryCall;
  updateTicket(argument: _convo_tickets_v1_UpdateTicketRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_convo_tickets_v1_Ticket__Output>): grpc.ClientUnaryCall;
  updateTicket(argument: _convo_tickets_v1_UpdateTicketRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_convo_tickets_v1_Ticket__Output>): grpc.ClientUnaryCall;
  updateTicket(argument: _convo_tickets_v1_UpdateTicketRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_convo_tickets_v1_Ticket__Output>): grpc.ClientUnaryCall;
  updateTicket(argument: _convo_tickets_v1_UpdateTicketRequest, callback: grpc.requestCallback<_convo_tickets_v1_Ticket__Output>): grpc.ClientUnaryCall;
  
}

export interface TicketsServiceHandlers extends grpc.UntypedServiceImplementation {
  CreateTicket: grpc.handleUnaryCall<_convo_tickets_v1_CreateTicketRequest__Output, _convo_tickets_v1_CreateTicketResponse>;
  
  GetTicket: grpc.handleUnaryCall<_convo_tickets_v1_GetTicketRequest__Output, _convo_tickets_v1_Ticket>;
  
  UpdateTicket: grpc.handleUnaryCall<_convo_tickets_v1_UpdateTicketRequest__Output, _convo_tickets_v1_Ticket>;
  
}

export interface TicketsServiceDefinition extends grpc.ServiceDefinition {
  CreateTicket: MethodDefinition<_convo_tickets_v1_CreateTicketRequest, _convo_tickets_v1_CreateTicketResponse, _convo_tickets_v1_CreateTicketRequest__Output, _convo_tickets_v1_CreateTicketResponse__Output>
  GetTicket: MethodDefinition<_convo_tickets_v1_GetTicketRequest, _convo_tickets_v1_Ticket, _convo_tickets_v1_GetTicketRequest__Output, _convo_tickets_v1_Ticket__Output>
  UpdateTicket: MethodDefinition<_convo_tickets_v1_UpdateTicketRequest, _convo_tickets_v1_Ticket, _convo_tickets_v1_UpdateTicketRequest__Output, _convo_tickets_v1_Ticket__Output>
}
