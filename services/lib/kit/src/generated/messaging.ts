import type * as grpc from '@grpc/grpc-js';
import type { MessageTypeDefinition } from '@grpc/proto-loader';

import type { GetMessageRequest as _convo_messaging_v1_GetMessageRequest, GetMessageRequest__Output as _convo_messaging_v1_GetMessageRequest__Output } from './convo/messaging/v1/GetMessageRequest';
import type { Media as _convo_messaging_v1_Media, Media__Output as _convo_messaging_v1_Media__Output } from './convo/messaging/v1/Media';
import type { Message as _convo_messaging_v1_Message, Message__Output as _convo_messaging_v1_Message__Output } from './convo/messaging/v1/Message';
import type { MessagingServiceClient as _convo_messaging_v1_MessagingServiceClient, MessagingServiceDefinition as _convo_messaging_v1_MessagingServiceDefinition } from './convo/messaging/v1/MessagingService';
import type { SendByTicketRequest as _convo_messaging_v1_SendByTicketRequest, SendByTicketRequest__Output as _convo_messaging_v1_SendByTicketRequest__Output } from './convo/messaging/v1/SendByTicketRequest';
import type { SendByTicketResponse as _convo_messaging_v1_SendByTicketResponse, SendByTicketResponse__Output as _convo_messaging_v1_SendByTicketResponse__Output } from './convo/messaging/v1/SendByTicketResponse';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  convo: {
    messaging: {
      v1: {
        GetMessageRequest: MessageTypeDefinition<_convo_messaging_v1_GetMessageRequest, _convo_messaging_v1_GetMessageRequest__Output>
        Media: MessageTypeDefinition<_convo_messaging_v1_Media, _convo_messaging_v1_Media__Output>
        Message: MessageTypeDefinition<_convo_messaging_v1_Message, _convo_messaging_v1_Message__Output>
        MessagingService: SubtypeConstructor<typeof grpc.Client, _convo_messaging_v1_MessagingServiceClient> & { service: _convo_messaging_v1_MessagingServiceDefinition }
        SendByTicketRequest: MessageTypeDefinition<_convo_messaging_v1_SendByTicketRequest, _convo_messaging_v1_SendByTicketRequest__Output>
        SendByTicketResponse: MessageTypeDefinition<_convo_messaging_v1_SendByTicketResponse, _convo_messaging_v1_SendByTicketResponse__Output>
      }
    }
  }
}

