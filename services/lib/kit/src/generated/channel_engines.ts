import type * as grpc from '@grpc/grpc-js';
import type { MessageTypeDefinition } from '@grpc/proto-loader';

import type { ChannelEnginesServiceClient as _convo_channel_engines_v1_ChannelEnginesServiceClient, ChannelEnginesServiceDefinition as _convo_channel_engines_v1_ChannelEnginesServiceDefinition } from './convo/channel_engines/v1/ChannelEnginesService';
import type { ChannelTarget as _convo_channel_engines_v1_ChannelTarget, ChannelTarget__Output as _convo_channel_engines_v1_ChannelTarget__Output } from './convo/channel_engines/v1/ChannelTarget';
import type { DeliverRequest as _convo_channel_engines_v1_DeliverRequest, DeliverRequest__Output as _convo_channel_engines_v1_DeliverRequest__Output } from './convo/channel_engines/v1/DeliverRequest';
import type { DeliverResponse as _convo_channel_engines_v1_DeliverResponse, DeliverResponse__Output as _convo_channel_engines_v1_DeliverResponse__Output } from './convo/channel_engines/v1/DeliverResponse';
import type { ListDriversRequest as _convo_channel_engines_v1_ListDriversRequest, ListDriversRequest__Output as _convo_channel_engines_v1_ListDriversRequest__Output } from './convo/channel_engines/v1/ListDriversRequest';
import type { ListDriversResponse as _convo_channel_engines_v1_ListDriversResponse, ListDriversResponse__Output as _convo_channel_engines_v1_ListDriversResponse__Output } from './convo/channel_engines/v1/ListDriversResponse';
import type { OutboundContent as _convo_channel_engines_v1_OutboundContent, OutboundContent__Output as _convo_channel_engines_v1_OutboundContent__Output } from './convo/channel_engines/v1/OutboundContent';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  convo: {
    channel_engines: {
      v1: {
        ChannelEnginesService: SubtypeConstructor<typeof grpc.Client, _convo_channel_engines_v1_ChannelEnginesServiceClient> & { service: _convo_channel_engines_v1_ChannelEnginesServiceDefinition }
        ChannelTarget: MessageTypeDefinition<_convo_channel_engines_v1_ChannelTarget, _convo_channel_engines_v1_ChannelTarget__Output>
        DeliverRequest: MessageTypeDefinition<_convo_channel_engines_v1_DeliverRequest, _convo_channel_engines_v1_DeliverRequest__Output>
        DeliverResponse: MessageTypeDefinition<_convo_channel_engines_v1_DeliverResponse, _convo_channel_engines_v1_DeliverResponse__Output>
        ListDriversRequest: MessageTypeDefinition<_convo_channel_engines_v1_ListDriversRequest, _convo_channel_engines_v1_ListDriversRequest__Output>
        ListDriversResponse: MessageTypeDefinition<_convo_channel_engines_v1_ListDriversResponse, _convo_channel_engines_v1_ListDriversResponse__Output>
        OutboundContent: MessageTypeDefinition<_convo_channel_engines_v1_OutboundContent, _convo_channel_engines_v1_OutboundContent__Output>
      }
    }
  }
}

