// Original file: /work/main/protos/messaging/v1/messaging.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { GetMessageRequest as _convo_messaging_v1_GetMessageRequest, GetMessageRequest__Output as _convo_messaging_v1_GetMessageRequest__Output } from '../../../convo/messaging/v1/GetMessageRequest';
import type { Message as _convo_messaging_v1_Message, Message__Output as _convo_messaging_v1_Message__Output } from '../../../convo/messaging/v1/Message';
import type { SendByTicketRequest as _convo_messaging_v1_SendByTicketRequest, SendByTicketRequest__Output as _convo_messaging_v1_SendByTicketRequest__Output } from '../../../convo/messaging/v1/SendByTicketRequest';
import type { SendByTicketResponse as _convo_messaging_v1_SendByTicketResponse, SendByTicketResponse__Output as _convo_messaging_v1_SendByTicketResponse__Output } from '../../../convo/messaging/v1/SendByTicketResponse';

export interface MessagingServiceClient extends grpc.Client {
  GetMessage(argument: _convo_messaging_v1_GetMessageRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_convo_messaging_v1_Message__Output>): grpc.ClientUnaryCall;
  GetMessage(argument: _convo_messaging_v1_GetMessageRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_convo_messaging_v1_Message__Output>): grpc.ClientUnaryCall;
  GetMessage(argument: _convo_messaging_v1_GetMessageRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_convo_messaging_v1_Message__Output>): grpc.ClientUnaryCall;
  GetMessage(argument: _convo_messaging_v1_GetMessageRequest, callback: grpc.requestCallback<_convo_messaging_v1_Message__Output>): grpc.ClientUnaryCall;
  getMessage(argument: _convo_messaging_v1_GetMessageRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_convo_messaging_v1_Message__Output>): grpc.ClientUnaryCall;
  getMessage(argument: _convo_messaging_v1_GetMessageRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_convo_messaging_v1_Message__Output>): grpc.ClientUnaryCall;
  getMessage(argument: _convo_messaging_v1_GetMessageRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_convo_messaging_v1_Message__Output>): grpc.ClientUnaryCall;
  getMessage(argument: _convo_messaging_v1_GetMessageRequest, callback: grpc.requestCallback<_convo_messaging_v1_Message__Output>): grpc.ClientUnaryCall;
  
  SendByTicket(argument: _convo_messaging_v1_SendByTicketRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_convo_messaging_v1_SendByTicketResponse__Output>): grpc.ClientUnaryCall;
  SendByTicket(argument: _convo_messaging_v1_SendByTicketRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_convo_messaging_v1_SendByTicketResponse__Output>): grpc.ClientUnaryCall;
  SendByTicket(argument: _convo_messaging_v1_SendByTicketRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_convo_messaging_v1_SendByTicketResponse__Output>): grpc.ClientUnaryCall;
  SendByTicket(argument: _convo_messaging_v1_SendByTicketRequest, callback: grpc.requestCallback<_convo_messaging_v1_SendByTicketResponse__Output>): grpc.ClientUnaryCall;
  sendByTicket(argument: _convo_messaging_v1_SendByTicketRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_convo_messaging_v1_SendByTicketResponse__Output>): grpc.ClientUnaryCall;
  sendByTicket(argument: _convo_messaging_v1_SendByTicketRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_convo_messaging_v1_SendByTicketResponse__Output>): grpc.ClientUnaryCall;
  sendByTicket(argument: _convo_messaging_v1_SendByTicketRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_convo_messaging_v1_SendByTicketResponse__Output>): grpc.ClientUnaryCall;
  sendByTicket(argument: _convo_messaging_v1_SendByTicketRequest, callback: grpc.requestCallback<_convo_messaging_v1_SendByTicketResponse__Output>): grpc.ClientUnaryCall;
  
}

export interface MessagingServiceHandlers extends grpc.UntypedServiceImplementation {
  GetMessage: grpc.handleUnaryCall<_convo_messaging_v1_GetMessageRequest__Output, _convo_messaging_v1_Message>;
  
  SendByTicket: grpc.handleUnaryCall<_convo_messaging_v1_SendByTicketRequest__Output, _convo_messaging_v1_SendByTicketResponse>;
  
}

export interface MessagingServiceDefinition extends grpc.ServiceDefinition {
  GetMessage: MethodDefinition<_convo_messaging_v1_GetMessageRequest, _convo_messaging_v1_Message, _convo_messaging_v1_GetMessageRequest__Output, _convo_messaging_v1_Message__Output>
  SendByTicket: MethodDefinition<_convo_messaging_v1_SendByTicketRequest, _convo_messaging_v1_SendByTicketResponse, _convo_messaging_v1_SendByTicketRequest__Output, _convo_messaging_v1_SendByTicketResponse__Output>
}
